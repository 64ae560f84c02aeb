// Parse-stack moves (stack.h).
#include "constrain/internal/stack.h"

#include <algorithm>

namespace gemmad::constrain::internal {

int32_t FrameArena::Intern(int32_t pos, int32_t parent) {
  auto [it, inserted] = index_.emplace(Key(pos, parent), static_cast<int32_t>(frames_.size()));
  if (inserted) frames_.push_back({pos, parent});
  return it->second;
}

void FrameArena::Truncate(size_t n) {
  while (frames_.size() > n) {
    const Frame& f = frames_.back();
    index_.erase(Key(f.pos, f.parent));
    frames_.pop_back();
  }
}

void FrameArena::Clear() {
  frames_.clear();
  index_.clear();
}

void Stepper::Visit(const Config& c) {
  if (std::find(seen_.begin(), seen_.end(), c) != seen_.end()) return;
  if (seen_.size() >= kMaxConfigs) return;
  seen_.push_back(c);
  work_.push_back(c);
}

bool Stepper::Close(const std::vector<Config>& seeds, std::vector<Config>& out) {
  out.clear();
  seen_.clear();
  work_.clear();
  bool complete = false;
  for (const Config& c : seeds) Visit(c);
  while (!work_.empty()) {
    const Config c = work_.back();
    work_.pop_back();
    if (c.pos == kEscaped) {
      out.push_back(c);
      continue;
    }
    const auto u = static_cast<size_t>(c.pos);
    if (p_.pos_has_bytes[u] || p_.tok_begin[u] != p_.tok_begin[u + 1]) out.push_back(c);
    for (int32_t i = p_.ref_begin[u]; i < p_.ref_begin[u + 1]; ++i) {
      const SymEdge& e = p_.refs[static_cast<size_t>(i)];
      const int32_t frame = arena_.Intern(e.to, c.parent);
      Visit({p_.rule_start[static_cast<size_t>(e.sym)], frame, c.taint});
    }
    if (!p_.pos_final[u]) continue;
    if (c.parent != kBottom) {
      const Frame& f = arena_.at(c.parent);
      Visit({f.pos, f.parent, c.taint});
      continue;
    }
    switch (mode_) {
      case PopMode::kRuntime: complete = true; break;
      case PopMode::kLocal: {
        // Ending the root when nothing calls it ends the output: no context can continue.
        const int32_t rule = p_.pos_rule[u];
        if (rule != p_.root_rule || !p_.return_sites[static_cast<size_t>(rule)].empty()) {
          Visit({kEscaped, kBottom, 1});
        }
        break;
      }
      case PopMode::kContext: {
        const int32_t rule = p_.pos_rule[u];
        const auto& sites = p_.return_sites[static_cast<size_t>(rule)];
        const bool ambiguous = sites.size() > 1 || (rule == p_.root_rule && !sites.empty());
        for (int32_t site : sites) {
          Visit({site, kBottom, static_cast<uint8_t>(c.taint | (ambiguous ? 1 : 0))});
        }
        break;
      }
    }
  }
  return complete;
}

void Stepper::StepByte(const std::vector<Config>& in, uint8_t b, std::vector<Config>& seeds) const {
  seeds.clear();
  for (const Config& c : in) {
    if (c.pos == kEscaped) {
      seeds.push_back(c);
      continue;
    }
    if (!p_.pos_has_bytes[static_cast<size_t>(c.pos)]) continue;
    const int32_t t = p_.Step(c.pos, b);
    if (t >= 0) seeds.push_back({t, c.parent, c.taint});
  }
}

void Stepper::StepToken(const std::vector<Config>& in, int32_t token, std::vector<Config>& seeds) const {
  seeds.clear();
  for (const Config& c : in) {
    if (c.pos < 0) continue;
    const auto u = static_cast<size_t>(c.pos);
    for (int32_t i = p_.tok_begin[u]; i < p_.tok_begin[u + 1]; ++i) {
      const SymEdge& e = p_.toks[static_cast<size_t>(i)];
      if (e.sym == token) seeds.push_back({e.to, c.parent, c.taint});
    }
  }
}

int64_t Stepper::MinComplete(const Config& c) const {
  if (c.pos < 0) return 0;
  int64_t total = p_.min_complete[static_cast<size_t>(c.pos)];
  for (int32_t f = c.parent; f != kBottom; f = arena_.at(f).parent) {
    total += p_.min_complete[static_cast<size_t>(arena_.at(f).pos)];
  }
  return total;
}

}  // namespace gemmad::constrain::internal
