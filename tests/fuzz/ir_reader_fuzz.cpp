// The IR reader on an .xml and its .bin ("XML\0BIN"): any model it accepts must also survive the
// writer and read back with the same ops, which checks the two against each other on models no
// test wrote by hand.
#include "fuzz_scratch.hpp"
#include "fuzz_targets.hpp"

#include "readers/ir/ir.hpp"

#include <stdexcept>

namespace mosaic::fuzz {

void ir_reader(const uint8_t* data, size_t size) {
    const auto [xml, bin] = split_at_nul(data, size);
    std::shared_ptr<Model> model;
    try {
        model = ir::read_ir(write_scratch("ir/model.xml", xml), write_scratch("ir/model.bin", bin));
    } catch (const std::runtime_error&) {
        return;  // refused, naming the file and layer: what a bad IR should get
    }
    // Not caught: what the reader accepted, the writer must write and the reader read back.
    const std::string again_xml = scratch_path("ir/again.xml");
    ir::write_ir(*model, again_xml);
    const auto again = ir::read_ir(again_xml);
    if (again->get_ops_count() != model->get_ops_count())
        report_finding("ir_reader", "the IR round trip changed the op count from " + std::to_string(model->get_ops_count()) +
                                        " to " + std::to_string(again->get_ops_count()));
}

}  // namespace mosaic::fuzz
