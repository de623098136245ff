#include "value_table.hpp"

#include <stdexcept>

namespace mosaic::cpu_plugin {

void ValueTable::set_layout(ValueId v, const dnnl::memory::desc& layout) {
    Value& target = value(v);
    if (target.kind != Value::Kind::intermediate)
        throw std::logic_error("CPU plugin: only an intermediate tensor may have a blocked layout");
    target.layout = layout;
}

ValueId ValueTable::add_plain_copy(ValueId of) {
    Value copy;
    copy.type = (*this)[of].type;
    copy.shape = (*this)[of].shape;
    copy.producer = (*this)[of].producer;
    return add_value(std::move(copy));
}

}  // namespace mosaic::cpu_plugin
