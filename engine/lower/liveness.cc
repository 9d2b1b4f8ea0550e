// Buffer liveness: a free after the last step that uses each buffer, except the buffers the plan
// returns and the inputs' (which the caller owns).
#include <map>
#include <set>
#include <vector>

#include "engine/lower/lowering_internal.h"
#include "engine/lower/step_uses.h"

namespace sf::lower::detail {

void Lowering::insert_frees() {
  std::map<int, size_t> last_use;
  std::set<int> keep;
  for (size_t i = 0; i < plan_.steps.size(); ++i) {
    const Step& s = plan_.steps[i];
    for_each_step_use(plan_, s, {.buffer = [&](int b) {
                        if (s.kind == Step::Kind::kOutput) {
                          keep.insert(b);  // returned: the caller's from here
                        } else {
                          last_use[b] = i;
                        }
                      }});
  }
  std::vector<Step> out;
  std::map<size_t, std::vector<int>> frees_after;
  for (const auto& [b, step] : last_use) {
    if (keep.count(b) || !plan_.buffers[b].input_name.empty()) continue;
    frees_after[step].push_back(b);
  }
  for (size_t i = 0; i < plan_.steps.size(); ++i) {
    out.push_back(plan_.steps[i]);
    for (int b : frees_after[i]) {
      Step f;
      f.kind = Step::Kind::kFree;
      f.buffer = b;
      out.push_back(f);
    }
  }
  plan_.steps = std::move(out);
}

}  // namespace sf::lower::detail
