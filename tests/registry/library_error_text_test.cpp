// No bare standard-library text reaches a user: what the C++ library says of its own failures
// ("map::at", a vector's range check, "stoi") crosses the ABI as an internal error that says so
// and what to do, with the library's words kept for the report (sdk/status.hpp's describe). A
// message of Mosaic's own crosses unchanged, whatever exception type carries it.
#include <mosaic/sdk/status.hpp>

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mosaic::test {
namespace {

// The status `fn` turns into through the guard every plugin entry point runs in, as the host reads it.
template <typename Fn>
std::pair<mosaic_status_code, std::string> status_of(Fn&& fn) {
    mosaic_status* status = sdk::guard(fn);
    if (!status) return {MOSAIC_OK, ""};
    std::pair<mosaic_status_code, std::string> out{status->code, status->message};
    status->release(status);
    return out;
}

void expect_internal_error(const std::pair<mosaic_status_code, std::string>& s, const std::string& library_text) {
    EXPECT_EQ(s.first, MOSAIC_ERROR_GENERAL);
    EXPECT_EQ(s.second.rfind("internal error (the C++ library reported \"" + library_text, 0), 0u) << s.second;
    EXPECT_NE(s.second.find("please report it with the model and the device"), std::string::npos) << s.second;
}

TEST(LibraryErrorText, AFailedLookupIsReportedAsTheInternalErrorItIs) {
    expect_internal_error(status_of([] { (void)std::map<int, int>{}.at(1); }), "map::at");
    expect_internal_error(status_of([] { (void)std::vector<int>(3).at(5); }), "vector::_M_range_check");
    expect_internal_error(status_of([] { (void)std::stoi("not a number"); }), "stoi");
    expect_internal_error(status_of([] { (void)std::optional<int>{}.value(); }), "bad optional access");
    expect_internal_error(status_of([] { (void)std::string("abc").substr(7); }), "basic_string::substr");
}

TEST(LibraryErrorText, MosaicsOwnMessagesCrossUnchangedWhateverTheirType) {
    const std::string own = "node 'conv1' (Convolution-opset1): the filters have 3 channels but the input has 4";
    EXPECT_EQ(status_of([&] { throw std::out_of_range(own); }).second, own);
    EXPECT_EQ(status_of([&] { throw std::invalid_argument(own); }).second, own);
    EXPECT_EQ(status_of([&] { throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, own); }),
              std::make_pair(MOSAIC_ERROR_NOT_SUPPORTED, own));
    // Names that merely contain a library word are not the library's texts.
    EXPECT_FALSE(sdk::is_library_text("Tensor::from_vector: 3 values for shape [2]"));
    EXPECT_FALSE(sdk::is_library_text("the vector:: of weights"));
    EXPECT_TRUE(sdk::is_library_text("[json.exception.type_error.302] type must be string, but is number"));
}

}  // namespace
}  // namespace mosaic::test
