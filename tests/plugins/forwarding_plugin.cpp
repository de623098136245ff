// FORWARD: a minimal orchestrator for testing the host services (see forwarding_device.hpp).
#include "forwarding_device.hpp"

MOSAIC_DEFINE_PLUGIN(mosaic::test_plugins::ForwardDevice, "mosaic_test_forward", "0.1.0")
