// An application of the vendor: runs x -> Relu -> Add(bias) on each device named on the command
// line and prints "<DEVICE> (<FULL_DEVICE_NAME>): <values>" and "<DEVICE> PERF_COUNT: <value>".
//   acme_app <registry.json|-> <DEVICE>...      ("-": the registry installed beside libmosaic)
#include <mosaic/mosaic.hpp>

#include <iostream>
#include <memory>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: acme_app <registry.json|-> <DEVICE>...\n";
        return 2;
    }
    try {
        const std::string registry = argv[1];
        std::unique_ptr<mosaic::Core> core =
            registry == "-" ? std::make_unique<mosaic::Core>() : std::make_unique<mosaic::Core>(registry);
        std::cout << "registry: " << core->registry_path() << "\n";
        std::cout << "devices:";
        for (const auto& d : core->get_available_devices()) std::cout << " " << d;
        std::cout << "\n";
        for (const auto& p : core->problems()) std::cout << "problem: " << p.device << ": " << p.message << "\n";

        mosaic::ModelBuilder b("acme_demo");
        auto x = b.parameter("x", mosaic::ElementType::f32, {2, 3});
        auto bias = b.constant<float>({3}, {1.f, 2.f, 3.f}, "bias");
        b.result(b.op("Add", {b.op("Relu", {x}), bias}), "y");
        auto model = b.build();

        for (int i = 2; i < argc; ++i) {
            const std::string device = argv[i];
            mosaic::CompiledModel compiled = core->compile_model(model, device);
            mosaic::InferRequest request = compiled.create_infer_request();
            request.set_input_tensor(mosaic::Tensor::from_vector<float>({2, 3}, mosaic::ElementType::f32,
                                                                        {-2.f, -0.5f, 0.f, 1.5f, 3.f, -4.f}));
            request.infer();
            std::cout << device << " (" << core->get_property(device, "FULL_DEVICE_NAME").get<std::string>() << "):";
            for (float v : request.get_output_tensor().to_vector<float>()) std::cout << " " << v;
            std::cout << "\n";
            std::cout << device << " PERF_COUNT: " << core->get_property(device, "PERF_COUNT").dump() << "\n";
        }
    } catch (const std::exception& e) {
        std::cerr << "acme_app: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
