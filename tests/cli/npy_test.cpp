// The .npy reader and writer of the mosaic CLI: files written by NumPy itself
// (tests/data/cli, made by gen_npy_fixtures.py), round trips of every dtype, and malformed headers.
#include "tools/mosaic/npy.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace mosaic::npy {
namespace {

std::string fixture(const std::string& name) { return std::string(MOSAIC_TEST_DATA) + "/cli/" + name; }

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A version 1.0 file around `dict`, padded the way NumPy pads, followed by `data`.
std::string make_npy(const std::string& dict, const std::string& data = "", int major = 1) {
    const size_t len_width = major == 1 ? 2 : 4;
    std::string header = dict;
    while ((6 + 2 + len_width + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::string out = "\x93NUMPY";
    out += static_cast<char>(major);
    out += '\0';
    for (size_t i = 0; i < len_width; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return out + header + data;
}

std::string floats(std::initializer_list<float> values) {
    std::string s;
    for (float v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
    return s;
}

// The message of the NpyError that parsing `bytes` throws ("" if none).
std::string parse_error(const std::string& bytes) {
    try {
        parse(bytes, "test.npy");
    } catch (const NpyError& e) {
        return e.what();
    }
    return "";
}

#define EXPECT_ERROR_HAS(bytes, text)                                             \
    do {                                                                          \
        const std::string msg_ = parse_error(bytes);                              \
        EXPECT_NE(msg_.find("test.npy"), std::string::npos) << msg_;              \
        EXPECT_NE(msg_.find(text), std::string::npos) << "message: '" << msg_ << "'"; \
    } while (0)

// ---------------------------------------------------------------------------------------------
// Files written by NumPy

TEST(NpyRead, NumpyFloat32Matrix) {
    const Tensor t = read(fixture("f32_2x3.npy"));
    EXPECT_EQ(t.get_element_type(), ElementType::f32);
    EXPECT_EQ(t.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0, 0.5f, 1, 1.5f, 2, 2.5f}));
}

TEST(NpyRead, NumpyVersion2Int64) {
    const Tensor t = read(fixture("i64_v2.npy"));
    EXPECT_EQ(t.get_element_type(), ElementType::i64);
    EXPECT_EQ(t.get_shape(), (Shape{4}));
    EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{-2, -1, 0, 1}));
}

TEST(NpyRead, NumpyFloat16) {
    const Tensor t = read(fixture("f16_vec.npy"));
    ASSERT_EQ(t.get_element_type(), ElementType::f16);
    const auto bits = t.to_vector<uint16_t>();
    ASSERT_EQ(bits.size(), 3u);
    EXPECT_EQ(f16_to_f32(bits[0]), 1.0f);
    EXPECT_EQ(f16_to_f32(bits[1]), -2.5f);
    EXPECT_EQ(f16_to_f32(bits[2]), 65504.0f);
}

TEST(NpyRead, NumpyBool) {
    const Tensor t = read(fixture("bool_2x2.npy"));
    EXPECT_EQ(t.get_element_type(), ElementType::boolean);
    EXPECT_EQ(t.get_shape(), (Shape{2, 2}));
    EXPECT_EQ(t.to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 1}));
}

TEST(NpyRead, NumpyScalarAndEmptyArray) {
    const Tensor scalar = read(fixture("u8_scalar.npy"));
    EXPECT_EQ(scalar.get_element_type(), ElementType::u8);
    EXPECT_EQ(scalar.get_shape(), Shape{});
    EXPECT_EQ(scalar.to_vector<uint8_t>(), std::vector<uint8_t>{7});

    const Tensor empty = read(fixture("f32_0x3.npy"));
    EXPECT_EQ(empty.get_shape(), (Shape{0, 3}));
    EXPECT_EQ(empty.get_size(), 0u);
}

TEST(NpyRead, NumpyFortranOrderIsRejected) {
    try {
        read(fixture("fortran_2x3.npy"));
        FAIL() << "expected an error";
    } catch (const NpyError& e) {
        EXPECT_NE(std::string(e.what()).find("Fortran"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("fortran_2x3.npy"), std::string::npos) << e.what();
    }
}

TEST(NpyRead, NumpyUnsupportedDtypesAreRejected) {
    for (const auto& [file, text] : {std::pair<const char*, const char*>{"big_endian.npy", "big-endian"},
                                     {"complex.npy", "unsupported dtype '<c8'"},
                                     {"structured.npy", "structured"}}) {
        try {
            read(fixture(file));
            ADD_FAILURE() << file << ": expected an error";
        } catch (const NpyError& e) {
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
        }
    }
}

TEST(NpyWrite, MatchesNumpyByteForByte) {
    Tensor t(ElementType::f32, {2, 3});
    float* p = t.data<float>();
    for (int i = 0; i < 6; ++i) p[i] = 0.5f * static_cast<float>(i);
    EXPECT_EQ(serialize(t), file_bytes(fixture("f32_2x3.npy")));

    Tensor b(ElementType::boolean, {2, 2});
    b.data<uint8_t>()[0] = b.data<uint8_t>()[3] = 1;
    EXPECT_EQ(serialize(b), file_bytes(fixture("bool_2x2.npy")));

    Tensor s(ElementType::u8, {});
    s.data<uint8_t>()[0] = 7;
    EXPECT_EQ(serialize(s), file_bytes(fixture("u8_scalar.npy")));
}

// ---------------------------------------------------------------------------------------------
// Round trips

TEST(NpyRoundTrip, EveryDtype) {
    for (ElementType type : {ElementType::f32, ElementType::f64, ElementType::f16, ElementType::i8, ElementType::u8,
                             ElementType::i16, ElementType::u16, ElementType::i32, ElementType::u32, ElementType::i64,
                             ElementType::u64, ElementType::boolean}) {
        Tensor t(type, {2, 3, 5});
        auto* bytes = static_cast<unsigned char*>(t.data());
        for (size_t i = 0; i < t.get_byte_size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 3);
        if (type == ElementType::boolean)
            for (size_t i = 0; i < t.get_size(); ++i) bytes[i] &= 1;
        const std::string file = serialize(t);
        EXPECT_EQ((file.find('\n') + 1) % 64, 0u) << "data must start 64-byte aligned";
        const Tensor back = parse(file);
        EXPECT_EQ(back.get_element_type(), type) << to_string(type);
        EXPECT_EQ(back.get_shape(), t.get_shape());
        EXPECT_EQ(std::memcmp(back.data(), t.data(), t.get_byte_size()), 0) << to_string(type);
    }
}

TEST(NpyRoundTrip, ThroughAFile) {
    const std::string path = ::testing::TempDir() + "/mosaic_npy_roundtrip.npy";
    Tensor t(ElementType::i32, {4});
    for (int i = 0; i < 4; ++i) t.data<int32_t>()[i] = i * i - 3;
    write(path, t);
    EXPECT_EQ(read(path).to_vector<int32_t>(), (std::vector<int32_t>{-3, -2, 1, 6}));
    std::remove(path.c_str());
}

TEST(NpyRoundTrip, LargeHeaderUsesVersion2) {
    // A rank-N shape whose header exceeds 65535 bytes needs format 2.0.
    Shape shape(30000, 1);
    Tensor t(ElementType::u8, shape);
    const std::string file = serialize(t);
    EXPECT_EQ(file[6], '\x02');
    EXPECT_EQ(parse(file).get_shape(), shape);
}

TEST(NpyDtype, Names) {
    EXPECT_EQ(dtype_of(ElementType::f32), "<f4");
    EXPECT_EQ(dtype_of(ElementType::i8), "|i1");
    EXPECT_EQ(dtype_of(ElementType::boolean), "|b1");
    EXPECT_THROW(dtype_of(ElementType::bf16), NpyError);
    EXPECT_EQ(element_type_of("<f8"), ElementType::f64);
    EXPECT_EQ(element_type_of("=i4"), ElementType::i32);
    EXPECT_EQ(element_type_of("|u1"), ElementType::u8);
    EXPECT_EQ(element_type_of("|f4"), ElementType::undefined);
    EXPECT_EQ(element_type_of(">f4"), ElementType::undefined);
    EXPECT_EQ(element_type_of("<U8"), ElementType::undefined);
}

// ---------------------------------------------------------------------------------------------
// Malformed files

const std::string kGoodDict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";

TEST(NpyMalformed, HandMadeGoodFileParses) {
    const Tensor t = parse(make_npy(kGoodDict, floats({1.5f, -2.0f})));
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1.5f, -2.0f}));
    // Double quotes, no trailing comma, keys in another order, Python 2 longs: still valid.
    const Tensor u = parse(make_npy("{\"shape\": (2L,), \"fortran_order\": False, \"descr\": \"<f4\"}",
                                    floats({3, 4})));
    EXPECT_EQ(u.to_vector<float>(), (std::vector<float>{3, 4}));
    // Versions 2.0 and 3.0 have a 4-byte header length.
    EXPECT_EQ(parse(make_npy(kGoodDict, floats({5, 6}), 2)).to_vector<float>(), (std::vector<float>{5, 6}));
    EXPECT_EQ(parse(make_npy(kGoodDict, floats({7, 8}), 3)).to_vector<float>(), (std::vector<float>{7, 8}));
}

TEST(NpyMalformed, NotNpyAtAll) {
    EXPECT_ERROR_HAS("", "not a .npy file");
    EXPECT_ERROR_HAS("PK\x03\x04 zip archive", "not a .npy file");
    EXPECT_ERROR_HAS("\x93NUMPX\x01\x00", "not a .npy file");
}

TEST(NpyMalformed, UnsupportedVersion) {
    std::string bytes = make_npy(kGoodDict, floats({1, 2}));
    bytes[6] = 4;
    EXPECT_ERROR_HAS(bytes, "version 4.0");
    bytes[6] = 1;
    bytes[7] = 1;
    EXPECT_ERROR_HAS(bytes, "version 1.1");
}

TEST(NpyMalformed, Truncated) {
    const std::string good = make_npy(kGoodDict, floats({1, 2}));
    EXPECT_ERROR_HAS(good.substr(0, 9), "header length is missing");
    EXPECT_ERROR_HAS(good.substr(0, 40), "truncated");
    EXPECT_ERROR_HAS(good.substr(0, good.size() - 1), "truncated");
    EXPECT_ERROR_HAS(good + "xx", "the file holds 10");
}

TEST(NpyMalformed, BadDicts) {
    EXPECT_ERROR_HAS(make_npy("'descr': '<f4'"), "expected '{'");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': False}"), "no 'shape'");
    EXPECT_ERROR_HAS(make_npy("{'fortran_order': False, 'shape': ()}"), "no 'descr'");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'shape': ()}"), "no 'fortran_order'");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'extra': 1}"),
                     "unexpected key 'extra'");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4, 'fortran_order': False, 'shape': ()}"), "malformed");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': ()}"), "True or False");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}"), "expected '('");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}"), "dimension");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}"), "negative");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}"),
                     "too large");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} trailing"),
                     "after the header");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)"), "expected '}'");
}

TEST(NpyMalformed, HugeShapeDoesNotAllocate) {
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16)}"),
                     "too large");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000,)}"), "truncated");
}

TEST(NpyMalformed, FortranOrderAndDtypes) {
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1,)}", floats({1})),
                     "Fortran-order");
    EXPECT_ERROR_HAS(make_npy("{'descr': '>i4', 'fortran_order': False, 'shape': (1,)}", "abcd"),
                     "astype('<i4')");
    EXPECT_ERROR_HAS(make_npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}"), "unsupported dtype '|O'");
    EXPECT_ERROR_HAS(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", floats({1}), 3).substr(0, 7),
                     "not a .npy file");
}

TEST(NpyRead, MissingFileAndDirectory) {
    EXPECT_THROW(read("/no/such/dir/x.npy"), NpyError);
    try {
        read(::testing::TempDir());
        FAIL() << "expected an error";
    } catch (const NpyError& e) {
        EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mosaic::npy
