// A Graphviz graph under construction (internal to kbp_exporters; includes cgraph).
//
// Two disciplines make cgraph's output depend on the plan only:
//   ids   cgraph's default id discipline makes a named object's id the address of its name
//         string, and keeps subgraphs ordered by id, so the order clusters are written (and laid
//         out) in would follow the heap. Here a name's id is its creation rank: subgraphs come
//         out in the order the view lists them, whatever the allocator did.
//   io    agwrite writes into a std::string instead of a FILE.
// Strings are copied by cgraph; the C API's `char*` parameters are never written through.
#pragma once

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <memory>
#include <string>

#include "exporters/dot.hpp"
#include "exporters/view.hpp"

namespace kbp::exporters::detail {

class CGraph {
public:
    explicit CGraph(const std::string& name);
    ~CGraph();
    CGraph(const CGraph&) = delete;
    CGraph& operator=(const CGraph&) = delete;

    Agraph_t* root() const { return g_; }
    // Names go through dot_name (text.hpp), so that every name parses back from the DOT text.
    Agraph_t* subgraph(Agraph_t* parent, const std::string& name);
    Agnode_t* node(Agraph_t* g, const std::string& name);
    Agedge_t* edge(Agraph_t* g, Agnode_t* tail, Agnode_t* head);

    // Declares an attribute with its default (written once at the top of the DOT file).
    Agsym_t* declare(int kind, const char* name, const char* default_value);
    void set(void* object, Agsym_t* sym, const std::string& value);
    void set_html(void* object, Agsym_t* sym, const std::string& html);  // an HTML-like label

    // The graph as DOT text.
    std::string write() const;

private:
    Agraph_t* g_ = nullptr;
};

// One Graphviz context for the whole process, for rendering (render.cpp) and laying out
// (dot_layout.cpp). Graphviz's pango text layout remembers the last font name by pointer into the
// context's font table; a second context would make it compare against freed memory. So the
// context is made once and freed at exit (Graphviz is not thread-safe anyway: one caller at a time).
GVC_t* graphviz_context();

// Collects Graphviz's agerr output while it lives and restores the previous handler afterwards.
class ErrorCapture {
public:
    ErrorCapture();
    ~ErrorCapture();
    ErrorCapture(const ErrorCapture&) = delete;
    ErrorCapture& operator=(const ErrorCapture&) = delete;
    std::string text() const;  // what Graphviz said, trailing white space removed

private:
    agusererrf previous_;
};

// The Graphviz graph of a view (dot.cpp): clusters, nodes, edges, labels, colours, legend.
std::unique_ptr<CGraph> make_graph(const View& view, const DotOptions& options);

}  // namespace kbp::exporters::detail
