#include "exporters/cgraph_build.hpp"

#include "exporters/text.hpp"

#include <cctype>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace kbp::exporters::detail {
namespace {

char* c_str(const std::string& s) { return const_cast<char*>(s.c_str()); }

// ---- ids: a name's id is its creation rank ---------------------------------------------------

// Named objects get even ids 2, 4, 6 ... in creation order; anonymous ones (edges, cgraph's
// internal objects) odd ids, as in cgraph's own discipline, which tells them apart by parity.
// A name is kept as a cgraph reference-counted string, as cgraph's own discipline does: its
// writer looks just before a string for the mark that says "HTML", so it must be one of these.
struct IdState {
    Agraph_t* g = nullptr;
    std::unordered_map<std::string, IDTYPE> ids;  // lookup only: nothing iterates it
    std::vector<char*> names;                     // names[id / 2 - 1], owned by the graph
    IDTYPE next_anonymous = 1;
};

void* id_open(Agraph_t* g, Agdisc_t*) {
    auto* s = new IdState;
    s->g = g;
    return s;
}

long id_map(void* state, int, char* str, IDTYPE* id, int create) {
    auto* s = static_cast<IdState*>(state);
    if (!str) {
        *id = s->next_anonymous;
        s->next_anonymous += 2;
        return 1;
    }
    auto it = s->ids.find(str);
    if (it != s->ids.end()) {
        *id = it->second;
        return 1;
    }
    if (!create) return 0;
    s->names.push_back(agstrdup(s->g, str));
    *id = static_cast<IDTYPE>(2 * s->names.size());
    s->ids.emplace(str, *id);
    return 1;
}

long id_alloc(void*, int, IDTYPE) { return 0; }  // callers may not choose ids
void id_free(void*, int, IDTYPE) {}              // names live as long as the graph

char* id_print(void* state, int, IDTYPE id) {
    auto* s = static_cast<IdState*>(state);
    if (id % 2 != 0 || id == 0 || id / 2 > s->names.size()) return nullptr;
    return s->names[id / 2 - 1];
}

void id_close(void* state) { delete static_cast<IdState*>(state); }
void id_register(void*, int, void*) {}

Agiddisc_t rank_ids = {id_open, id_map, id_alloc, id_free, id_print, id_close, id_register};

// ---- io: agwrite into a std::string ----------------------------------------------------------

int io_read(void*, char*, int) { return 0; }
int io_put(void* chan, const char* str) {
    static_cast<std::string*>(chan)->append(str);
    return 1;
}
int io_flush(void*) { return 0; }

Agiodisc_t string_io = {io_read, io_put, io_flush};

Agdisc_t discipline = {&AgMemDisc, &rank_ids, &string_io};

}  // namespace

namespace {

std::string& graphviz_messages() {
    static std::string messages;
    return messages;
}

int collect_message(char* text) {
    if (text && graphviz_messages().size() < 4000) graphviz_messages() += text;
    return 0;
}

}  // namespace

ErrorCapture::ErrorCapture() : previous_(agseterrf(collect_message)) { graphviz_messages().clear(); }

ErrorCapture::~ErrorCapture() { agseterrf(previous_); }

std::string ErrorCapture::text() const {
    std::string t = graphviz_messages();
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
    return t;
}

GVC_t* graphviz_context() {
    struct Holder {
        GVC_t* gvc = gvContext();
        ~Holder() {
            if (gvc) gvFreeContext(gvc);
        }
    };
    static Holder holder;
    return holder.gvc;
}

CGraph::CGraph(const std::string& name) {
    g_ = agopen(c_str(name), Agdirected, &discipline);
    if (!g_) throw std::runtime_error("cgraph: agopen failed");
}

CGraph::~CGraph() {
    if (g_) agclose(g_);
}

Agraph_t* CGraph::subgraph(Agraph_t* parent, const std::string& name) { return agsubg(parent, c_str(dot_name(name)), 1); }

Agnode_t* CGraph::node(Agraph_t* g, const std::string& name) { return agnode(g, c_str(dot_name(name)), 1); }

Agedge_t* CGraph::edge(Agraph_t* g, Agnode_t* tail, Agnode_t* head) { return agedge(g, tail, head, nullptr, 1); }

Agsym_t* CGraph::declare(int kind, const char* name, const char* default_value) {
    return agattr(g_, kind, const_cast<char*>(name), const_cast<char*>(default_value));
}

void CGraph::set(void* object, Agsym_t* sym, const std::string& value) { agxset(object, sym, c_str(value)); }

void CGraph::set_html(void* object, Agsym_t* sym, const std::string& html) {
    // agxset keeps the string's HTML mark: it takes another reference to the same entry.
    char* s = agstrdup_html(g_, c_str(html));
    agxset(object, sym, s);
    agstrfree(g_, s);
}

std::string CGraph::write() const {
    std::string out;
    agwrite(g_, &out);
    return out;
}

}  // namespace kbp::exporters::detail
