// hello_classification, as OpenVINO's sample: classifies one image with a model on a device and
// prints the top 10 classes.
//
//   hello_classification <path_to_model> <path_to_image> <device_name>
//   hello_classification squeezenet1.1.xml picture.jpg HETERO:GPU,CPU
//
// The image (JPEG or PNG) is decoded, resized to the model input's height and width and laid out
// for it (NCHW or NHWC from the shape, BGR, 0..255) by tools/image, which `mosaic run -i` uses
// too. The model must have one image input; its first output is read as class scores.
#include <mosaic/mosaic.hpp>

#include "tools/image/image_input.hpp"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

namespace {

// Class scores as floats, whatever the output's element type.
std::vector<float> scores_of(const mosaic::Tensor& t) {
    std::vector<float> out(t.get_size());
    switch (t.get_element_type()) {
        case mosaic::element::f32: std::copy_n(t.data<float>(), t.get_size(), out.begin()); break;
        case mosaic::element::f64: std::copy_n(t.data<double>(), t.get_size(), out.begin()); break;
        case mosaic::element::i64: std::copy_n(t.data<int64_t>(), t.get_size(), out.begin()); break;
        case mosaic::element::i32: std::copy_n(t.data<int32_t>(), t.get_size(), out.begin()); break;
        default:
            throw std::runtime_error(std::string("the model's first output is ") +
                                     mosaic::to_string(t.get_element_type()) + "; class scores must be f32, f64, i32 or i64");
    }
    return out;
}

}  // namespace

int main(int argc, char* argv[]) {
    try {
        if (argc != 4) {
            std::cout << "Usage : " << argv[0] << " <path_to_model> <path_to_image> <device_name>" << std::endl;
            return EXIT_FAILURE;
        }
        const std::string model_path = argv[1], image_path = argv[2], device_name = argv[3];

        // Step 1. Initialize the runtime core.
        mosaic::Core core;

        // Step 2. Read a model.
        std::cout << "[ INFO ] Loading model files: " << model_path << std::endl;
        std::shared_ptr<mosaic::Model> model = core.read_model(model_path);
        if (model->inputs().size() != 1)
            throw std::logic_error("Sample supports models with 1 input only, " + model_path + " has " +
                                   std::to_string(model->inputs().size()));

        // A model exported with a dynamic batch ([?,3,224,224], as torch exports) classifies one
        // image: batch 1. Other dynamic dimensions need the model reshaped first.
        mosaic::Shape shape = model->input().get_partial_shape();
        if (!shape.empty() && shape[0] < 0) {
            shape[0] = 1;
            model->reshape({{model->input().get_any_name(), shape}});
        }

        // Step 3. Read the image into a tensor laid out as the input wants it.
        const mosaic::Output input = model->input();
        mosaic::Tensor input_tensor =
            mosaic::image::load_images({image_path}, input.get_element_type(), input.get_shape());

        // Step 4. Compile the model on the device.
        mosaic::CompiledModel compiled_model = core.compile_model(model, device_name);

        // Step 5. Create an infer request and infer synchronously.
        mosaic::InferRequest infer_request = compiled_model.create_infer_request();
        infer_request.set_input_tensor(input_tensor);
        infer_request.infer();

        // Step 6. Process the output: the top 10 classes, highest first.
        const std::vector<float> scores = scores_of(infer_request.get_output_tensor(0));
        std::vector<size_t> order(scores.size());
        std::iota(order.begin(), order.end(), 0);
        const size_t top = std::min<size_t>(10, order.size());
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                          [&](size_t a, size_t b) { return scores[a] > scores[b]; });

        std::cout << "\nTop " << top << " results:\n\n"
                  << "Image " << image_path << "\n\n"
                  << "classid probability\n"
                  << "------- -----------\n";
        for (size_t i = 0; i < top; ++i)
            std::cout << std::left << std::setw(8) << order[i] << std::fixed << std::setprecision(7) << scores[order[i]]
                      << "\n";
        std::cout << std::endl;
    } catch (const std::exception& ex) {
        std::cerr << ex.what() << std::endl;
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}
