// Statuses across the ABI, seen from C++: exceptions on one side become mosaic_status objects,
// and statuses received from the other side become exceptions again.
#pragma once

#include <mosaic/plugin_abi.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mosaic::sdk {

// An error with an ABI status code; anything else thrown maps to MOSAIC_ERROR_GENERAL.
class Error : public std::runtime_error {
public:
    Error(mosaic_status_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
    mosaic_status_code code() const { return code_; }

private:
    mosaic_status_code code_;
};

inline const char* status_code_name(mosaic_status_code code) {
    switch (code) {
        case MOSAIC_OK: return "OK";
        case MOSAIC_ERROR_GENERAL: return "GENERAL_ERROR";
        case MOSAIC_ERROR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
        case MOSAIC_ERROR_NOT_SUPPORTED: return "NOT_SUPPORTED";
        case MOSAIC_ERROR_NOT_FOUND: return "NOT_FOUND";
        case MOSAIC_ERROR_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
        case MOSAIC_ERROR_DEVICE: return "DEVICE_ERROR";
        case MOSAIC_ERROR_CANCELLED: return "CANCELLED";
    }
    return "UNKNOWN";
}

// A status allocated by this side of the boundary (its release function lives here too).
inline mosaic_status* make_status(mosaic_status_code code, const std::string& message) noexcept {
    struct Owned {
        mosaic_status status;
        char text[1];  // over-allocated
    };
    void* memory = std::malloc(sizeof(Owned) + message.size());
    if (!memory) {
        // Never NULL (that would read as success): a static status whose release does nothing.
        static mosaic_status out_of_memory{sizeof(mosaic_status), MOSAIC_ERROR_OUT_OF_MEMORY,
                                           "out of memory while reporting an error", [](mosaic_status*) {}, {}};
        return &out_of_memory;
    }
    auto* owned = static_cast<Owned*>(memory);
    std::memset(&owned->status, 0, sizeof(mosaic_status));
    std::memcpy(owned->text, message.c_str(), message.size() + 1);
    owned->status.struct_size = sizeof(mosaic_status);
    owned->status.code = code;
    owned->status.message = owned->text;
    owned->status.release = [](mosaic_status* s) { std::free(s); };
    return &owned->status;
}

// Whether `text` is what the C++ standard library (or nlohmann::json) says of its own failures:
// "map::at", "vector::_M_range_check: __n (which is 5) >= ...", "stoi", "bad optional access".
// Such a text names neither the model nor what to do; reaching a user, it is a bug in Mosaic.
inline bool is_library_text(std::string_view text) {
    static constexpr std::string_view exact[] = {"stoi", "stol", "stoll", "stoul", "stoull", "stof", "stod", "stold",
                                                 "bad optional access", "bad_optional_access", "bad any_cast", "std::bad_variant_access", "bad_function_call",
                                                 "std::bad_cast", "std::bad_any_cast", "std::exception",
                                                 "std::bad_weak_ptr", "bad_weak_ptr", "std::bad_array_new_length"};
    for (std::string_view e : exact)
        if (text == e) return true;
    static constexpr std::string_view prefixes[] = {"map::at", "_Map_base::at", "vector::", "basic_string::", "deque::",
                                                    "array::at", "bitset::", "string_view::", "std::get: ",
                                                    "[json.exception."};
    for (std::string_view p : prefixes)
        if (text.substr(0, p.size()) == p) return true;
    return false;
}

// The message a status carries for exception `e`: its own text, but for the library's texts
// above, which are reported as the internal errors they are, with what they said.
inline std::string describe(const std::exception& e) {
    const char* what = e.what();
    if (!is_library_text(what)) return what;
    return std::string("internal error (the C++ library reported \"") + what +
           "\"); this is a bug in Mosaic or in the plugin: please report it with the model and the device";
}

// Runs `fn`, turning any exception into a status. Used at every C entry point.
template <typename Fn>
mosaic_status* guard(Fn&& fn) noexcept {
    try {
        fn();
        return nullptr;
    } catch (const Error& e) {
        return make_status(e.code(), e.what());
    } catch (const std::bad_alloc&) {
        return make_status(MOSAIC_ERROR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        return make_status(MOSAIC_ERROR_GENERAL, describe(e));
    } catch (...) {
        return make_status(MOSAIC_ERROR_GENERAL, "unknown exception");
    }
}

// Takes ownership of a status received from the other side; throws Error when it is an error.
inline void check(mosaic_status* status, const std::string& context = "") {
    if (!status) return;
    std::string message = status->message ? status->message : "(no message)";
    mosaic_status_code code = status->code;
    if (status->release) status->release(status);
    throw Error(code, context.empty() ? message : context + ": " + message);
}

// A sink that appends to a std::string.
inline mosaic_sink string_sink(std::string& out) {
    return {&out, [](void* ctx, const void* data, size_t size) {
                try {
                    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), size);
                    return 0;
                } catch (...) {
                    return 1;
                }
            }};
}

inline void write_to(mosaic_sink sink, std::string_view text) {
    if (sink.write(sink.context, text.data(), text.size()) != 0)
        throw Error(MOSAIC_ERROR_OUT_OF_MEMORY, "the caller's sink refused the output");
}

}  // namespace mosaic::sdk
