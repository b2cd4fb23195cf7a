// The planner's catalog: architectures, recipes (and reusable recipe parts), hardware targets,
// kernel tables, fusion rules, explain texts and ops, each a JSON data file. The files compiled
// into kbp come first; `--catalog DIR` adds or replaces files by the same relative path, and a
// name that is an existing path names a file directly. Every file is checked against its kind's
// schema as it loads (check_data.hpp): a catalog that loads is one the passes can read.
//
// Loading and checking the catalog costs more than planning a small model, and it is the same
// for every plan a process makes: a Catalog is loaded once (a Planner keeps it, plan.hpp) and
// each plan or cost estimate works on a share() of it, which reads the loaded files in place
// and keeps only the files that plan read by path (its config, a recipe named by path).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/result.hpp"

namespace kbp::planner {

struct KernelCatalog;  // kernel_records.hpp
struct FusionCatalog;  // fusion_records.hpp
struct TargetRecord;   // target_records.hpp
struct RecipeRecord;   // recipe_records.hpp
struct RecipePart;     // recipe_records.hpp

struct DataFile {
    std::string kind;    // "architectures", "recipes", "recipes/parts", "targets", "kernels", "fusion", "explain", "ops"
    std::string name;    // file name without .json
    std::string origin;  // "embedded:recipes/x.json", "DIR/recipes/x.json" or the path given
    std::string text;
    nlohmann::ordered_json json;
    std::string sha256;
    // The architectures this one extends, nearest first (architecture_extends.hpp): its json is
    // merged onto theirs, and a plan records them as inputs too.
    std::vector<const DataFile*> bases;
    // The file as typed records (data_records.hpp), read once its schema passed it: the passes
    // read these, not `json`. Set for its kind alone; shared by every share() of the catalog.
    std::shared_ptr<const KernelCatalog> kernel_catalog;
    std::shared_ptr<const FusionCatalog> fusion_catalog;
    std::shared_ptr<const TargetRecord> target_record;
    std::shared_ptr<const RecipeRecord> recipe_record;
    std::shared_ptr<const RecipePart> recipe_part;
};

// Whether a recipe or target name is a file's path rather than a catalog name.
bool looks_like_path(const std::string& name_or_path);

class Catalog {
public:
    // The embedded files, then those under `override_dir` (if given).
    static Result<Catalog> load(const std::optional<std::string>& override_dir);

    // A catalog holding the same loaded and checked files, not copied and not checked again,
    // and none of the files this one read by path: what one plan starts from.
    Catalog share() const;

    // The file of `kind` named `name_or_path`: an existing path, or a catalog name.
    Result<const DataFile*> get(const std::string& kind, const std::string& name_or_path);
    // The file at `path`, read now (a model config, or a data file outside the catalog).
    Result<const DataFile*> file(const std::string& kind, const std::string& path);
    // Every file of `kind`, by name.
    std::vector<const DataFile*> all(const std::string& kind) const;

private:
    Status add(std::string relative, std::string origin, std::string text);

    // By "kind/name". Filled by load() alone, then never changed: shares of one catalog read it
    // together (from several threads, too), and pointers into it stay valid while any share lives.
    std::shared_ptr<std::map<std::string, DataFile>> files_ = std::make_shared<std::map<std::string, DataFile>>();
    std::vector<std::unique_ptr<DataFile>> loaded_;  // files named by path
};

// The catalog's recipes made for a target (they name it in `target`) that `wants_target` accepts
// and that serve `architecture`: a recipe listing `architectures` serves those alone. What kbp
// offers when a plan names no recipe, or one the target cannot run.
std::vector<const DataFile*> recipes_made_for(const Catalog& catalog, const std::function<bool(const std::string& target)>& wants_target,
                                              const std::string& architecture);

}  // namespace kbp::planner
