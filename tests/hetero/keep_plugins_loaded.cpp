// Under ThreadSanitizer only: keeps every plugin library these tests use loaded for the whole run.
//
// Why: when a test ends, the last handle of an infer request may be dropped on a device thread
// (framework/src/runtime/infer_request.cpp hands it to a detached thread), which then releases the compiled
// model, the device and, with the last Core gone, dlclose()s the plugin. The next test's Core
// dlopen()s the same library, usually at the same address. ld.so unmaps the old copy without going
// through the interceptors TSan uses to forget an address range's history, so TSan pairs the new
// copy's static initialisation with the old copy's last reads and reports a race that cannot
// happen (dlclose completes before the dlopen that maps the library again). Holding one Core with
// every plugin loaded avoids the reload; nothing else in the tests changes.
#if defined(__SANITIZE_THREAD__)

#include "hetero/hetero_test_util.hpp"

namespace mosaic::test::hetero {
namespace {

class KeepPluginsLoaded : public ::testing::Environment {
public:
    void SetUp() override {
        core_ = std::make_unique<Core>(build_registry().string());
        core_->get_available_devices();  // loads every plugin of the build registry
        core_->register_plugin(rendezvous_plugin().string(), "KEEP_RENDEZVOUS_LOADED");
        core_->register_plugin(forward_plugin().string(), "KEEP_FORWARD_LOADED");
    }
    void TearDown() override { core_.reset(); }

private:
    std::unique_ptr<Core> core_;
};

[[maybe_unused]] ::testing::Environment* const keep_plugins_loaded =
    ::testing::AddGlobalTestEnvironment(new KeepPluginsLoaded);

}  // namespace
}  // namespace mosaic::test::hetero

#endif
