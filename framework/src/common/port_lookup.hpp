// Finding an input or output of a Model or a CompiledModel by position or name, with errors that
// list what there is. `owner` begins each message ("model 'm'", "the compiled model"), `what` names
// the kind ("input", "output"), and `names_of(port)` gives the names a port answers to, the one
// applications use first.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::ports {

template <typename Port, typename NamesOf>
std::string listed(const std::vector<Port>& ports, NamesOf names_of) {
    std::string s;
    for (const auto& p : ports) s += (s.empty() ? "'" : ", '") + names_of(p).front() + "'";
    return s.empty() ? "none" : s;
}

template <typename Port, typename NamesOf>
const Port& at(const std::vector<Port>& ports, size_t index, const std::string& owner, const char* what,
               NamesOf names_of) {
    if (index >= ports.size())
        throw std::out_of_range(owner + " has " + std::to_string(ports.size()) + " " + what + "s, no " + what + " " +
                                std::to_string(index) + " (" + listed(ports, names_of) + ")");
    return ports[index];
}

template <typename Port, typename NamesOf>
const Port& named(const std::vector<Port>& ports, const std::string& name, const std::string& owner,
                  const char* what, NamesOf names_of) {
    for (const auto& p : ports) {
        const std::vector<std::string> names = names_of(p);
        if (std::find(names.begin(), names.end(), name) != names.end()) return p;
    }
    throw std::out_of_range(owner + " has no " + what + " named '" + name + "' (" + what +
                            "s: " + listed(ports, names_of) + ")");
}

template <typename Port, typename NamesOf>
const Port& single(const std::vector<Port>& ports, const std::string& owner, const char* what, NamesOf names_of) {
    if (ports.size() != 1)
        throw std::out_of_range(owner + " has " + std::to_string(ports.size()) + " " + what + "s (" +
                                listed(ports, names_of) + "); name one: " + what + "(index) or " + what + "(name)");
    return ports.front();
}

}  // namespace mosaic::ports
