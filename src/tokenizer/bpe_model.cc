// BPE: initial symbols per character (with byte fallback / unk), then the lowest-ranked merge
// first (ties: leftmost), exactly as HF Word::merge_all; parsing of the model JSON.
#include "tokenizer/bpe_model.h"

#include <fmt/format.h>

#include <deque>
#include <queue>

#include "tokenizer/json_scan.h"
#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {
namespace {

Status ParseError(const JsonScanner& s) { return DataLossError("tokenizer.json: model: " + s.error()); }

// Reads `"key": string-or-null`.
bool ReadOptString(JsonScanner* s, std::optional<std::string>* out) {
  if (s->Peek() == 'n') {
    std::string_view raw;
    if (!s->SkipValue(&raw)) return false;
    if (raw != "null") return s->Fail("expected a string or null");
    out->reset();
    return true;
  }
  std::string_view v;
  std::string storage;
  if (!s->ReadString(&v, &storage)) return false;
  *out = std::string(v);
  return true;
}

bool ReadOptBool(JsonScanner* s, bool* out) {
  std::string_view raw;
  if (!s->SkipValue(&raw)) return false;
  if (raw == "true") *out = true;
  else if (raw == "false") *out = false;
  else if (raw != "null") return s->Fail("expected a boolean or null");
  return true;
}

// "dropout": null or 0 (HF BPE dropout > 0 is random, so it cannot be reproduced).
Status CheckDropout(JsonScanner* s) {
  std::string_view raw;
  if (!s->SkipValue(&raw)) return ParseError(*s);
  if (raw == "null") return OkStatus();
  double p = std::strtod(std::string(raw).c_str(), nullptr);
  if (p < 0.0 || p > 1.0) return DataLossError("tokenizer.json: model.dropout must be in [0, 1]");
  if (p != 0.0) return UnimplementedError("tokenizer.json: model.dropout > 0 (random BPE dropout) is not supported");
  return OkStatus();
}

}  // namespace

Status BpeModel::ParseVocab(JsonScanner* s) {
  if (!s->Expect('{')) return ParseError(*s);
  vocab_.Reserve(1 << 18, 1 << 21);
  std::string storage;
  bool first = true;
  while (s->NextMember(&first, '}')) {
    std::string_view tok;
    int64_t id;
    if (!s->ReadString(&tok, &storage) || !s->Expect(':') || !s->ReadInt(&id)) return ParseError(*s);
    if (id < 0 || id > INT32_MAX - 1) {
      return DataLossError(fmt::format("tokenizer.json: model.vocab: id {} out of range", id));
    }
    vocab_.Insert(tok, static_cast<int32_t>(id));
  }
  return s->ok() ? OkStatus() : ParseError(*s);
}

Status BpeModel::ParseMerges(JsonScanner* s, Merges* merges, std::deque<std::string>* storage) {
  if (!s->Expect('[')) return ParseError(*s);
  bool first = true;
  int form = 0;  // 1: [a, b] pairs, 2: "a b" strings
  std::string sa, sb;
  // A string that had escapes was unescaped into sa/sb; keep it in stable storage.
  auto keep = [&](std::string_view v, std::string& st) -> std::string_view {
    return (!st.empty() && v.data() == st.data()) ? std::string_view(storage->emplace_back(std::move(st))) : v;
  };
  while (s->NextMember(&first, ']')) {
    std::string_view a, b;
    sa.clear();
    sb.clear();
    const int this_form = s->Peek() == '[' ? 1 : 2;
    if (form != 0 && form != this_form) return DataLossError("tokenizer.json: model.merges mixes the two forms");
    form = this_form;
    if (form == 1) {
      if (!s->Expect('[') || !s->ReadString(&a, &sa) || !s->Expect(',') || !s->ReadString(&b, &sb) ||
          !s->Expect(']')) {
        return ParseError(*s);
      }
      a = keep(a, sa);
      b = keep(b, sb);
    } else {
      std::string_view line;
      if (!s->ReadString(&line, &sa)) return ParseError(*s);
      if (line.substr(0, 8) == "#version") continue;
      line = keep(line, sa);
      size_t sp = line.find(' ');
      if (sp == std::string_view::npos || line.find(' ', sp + 1) != std::string_view::npos) {
        return DataLossError(fmt::format("tokenizer.json: model.merges: merge {} is not \"a b\"", merges->size() + 1));
      }
      a = line.substr(0, sp);
      b = line.substr(sp + 1);
    }
    merges->emplace_back(a, b);
  }
  return s->ok() ? OkStatus() : ParseError(*s);
}

Result<std::unique_ptr<BpeModel>> BpeModel::Parse(JsonScanner* s) {
  auto model = std::unique_ptr<BpeModel>(new BpeModel());
  Merges merges;
  std::deque<std::string> storage;  // unescaped merge strings (stable addresses)
  bool have_vocab = false, have_merges = false;
  std::string type = "BPE";
  if (!s->Expect('{')) return ParseError(*s);
  bool first = true;
  std::string key_storage;
  while (s->NextMember(&first, '}')) {
    std::string_view key;
    if (!s->ReadString(&key, &key_storage) || !s->Expect(':')) return ParseError(*s);
    const std::string k(key);
    bool ok = true;
    if (k == "vocab") {
      have_vocab = true;
      GEMMAD_RETURN_IF_ERROR(model->ParseVocab(s));
    } else if (k == "merges") {
      have_merges = true;
      GEMMAD_RETURN_IF_ERROR(model->ParseMerges(s, &merges, &storage));
    } else if (k == "type") {
      std::optional<std::string> t;
      ok = ReadOptString(s, &t);
      type = t.value_or("");
    } else if (k == "dropout") {
      GEMMAD_RETURN_IF_ERROR(CheckDropout(s));
    } else if (k == "unk_token") {
      ok = ReadOptString(s, &model->unk_token_);
    } else if (k == "continuing_subword_prefix") {
      ok = ReadOptString(s, &model->prefix_);
    } else if (k == "end_of_word_suffix") {
      ok = ReadOptString(s, &model->suffix_);
    } else if (k == "fuse_unk") {
      ok = ReadOptBool(s, &model->fuse_unk_);
    } else if (k == "byte_fallback") {
      ok = ReadOptBool(s, &model->byte_fallback_);
    } else if (k == "ignore_merges") {
      ok = ReadOptBool(s, &model->ignore_merges_);
    } else {
      std::string_view raw;
      ok = s->SkipValue(&raw);
    }
    if (!ok) return ParseError(*s);
  }
  if (!s->ok()) return ParseError(*s);
  if (type != "BPE") {
    return UnimplementedError(fmt::format("tokenizer.json: model type \"{}\" is not supported (only BPE)", type));
  }
  if (!have_vocab || !have_merges) return DataLossError("tokenizer.json: model: missing vocab/merges");
  GEMMAD_RETURN_IF_ERROR(model->Build(merges));
  return model;
}

Status BpeModel::Build(const Merges& merges) {
  int32_t limit = 0;
  vocab_.ForEach([&](std::string_view, int32_t id) { limit = std::max(limit, id + 1); });
  id_to_token_.assign(limit, std::string_view());
  has_id_.assign(limit, false);
  vocab_.ForEach([&](std::string_view tok, int32_t id) {
    id_to_token_[id] = tok;
    has_id_[id] = true;
  });
  const size_t prefix_len = prefix_ ? prefix_->size() : 0;
  merges_.Reserve(merges.size());
  std::string buf;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    auto [a, b] = merges[rank];
    int32_t a_id = vocab_.Find(a), b_id = vocab_.Find(b);
    if (a_id < 0) return DataLossError(fmt::format("tokenizer.json: merge token \"{}\" is not in the vocabulary", a));
    if (b_id < 0) return DataLossError(fmt::format("tokenizer.json: merge token \"{}\" is not in the vocabulary", b));
    if (b.size() < prefix_len) return DataLossError(fmt::format("tokenizer.json: merge token \"{}\" lacks the subword prefix", b));
    buf.assign(a);
    buf.append(b.substr(prefix_len));
    int32_t new_id = vocab_.Find(buf);
    if (new_id < 0) return DataLossError(fmt::format("tokenizer.json: merge result \"{}\" is not in the vocabulary", buf));
    merges_.Insert((static_cast<uint64_t>(a_id) << 32) | static_cast<uint32_t>(b_id),
                   (static_cast<uint64_t>(rank) << 32) | static_cast<uint32_t>(new_id));
  }
  for (int b = 0; b < 256; ++b) byte_ids_[b] = vocab_.Find(fmt::format("<0x{:02X}>", b));
  for (int c = 0; c < 128; ++c) {
    char ch = static_cast<char>(c);
    ascii_ids_[c] = (prefix_ || suffix_) ? -1 : vocab_.Find(std::string_view(&ch, 1));
  }
  if (unk_token_) {
    unk_id_ = vocab_.Find(*unk_token_);
    // HF fails at encode time when it needs an unk token that is not in the vocabulary; refuse
    // such a file up front unless byte fallback covers every byte (then unk is never needed).
    bool all_bytes = byte_fallback_;
    for (int32_t id : byte_ids_) all_bytes = all_bytes && id >= 0;
    if (unk_id_ < 0 && !all_bytes) {
      return DataLossError(fmt::format("tokenizer.json: model.unk_token \"{}\" is not in the vocabulary", *unk_token_));
    }
  }
  return OkStatus();
}

int32_t BpeModel::SymbolId(std::string_view piece, bool is_first, bool is_last, std::string* buf) const {
  if (!prefix_ && !suffix_) {
    if (piece.size() == 1 && static_cast<unsigned char>(piece[0]) < 0x80) return ascii_ids_[static_cast<unsigned char>(piece[0])];
    return vocab_.Find(piece);
  }
  buf->clear();
  if (!is_first && prefix_) buf->append(*prefix_);
  buf->append(piece);
  if (is_last && suffix_) buf->append(*suffix_);
  return vocab_.Find(*buf);
}

void BpeModel::Tokenize(std::string_view w, std::vector<int32_t>* out) const {
  if (w.empty()) return;
  if (ignore_merges_) {
    if (int32_t id = vocab_.Find(w); id >= 0) {
      out->push_back(id);
      return;
    }
  }
  std::vector<int32_t> ids;
  ids.reserve(w.size());
  std::string buf;
  int32_t pending_unk = -1;  // an unk symbol not yet emitted (fuse_unk accumulates into it)
  size_t pos = 0;
  while (pos < w.size()) {
    const size_t start = pos;
    unicode::DecodeUtf8(w, &pos);
    std::string_view piece = w.substr(start, pos - start);
    const bool is_first = start == 0, is_last = pos >= w.size();
    int32_t id = SymbolId(piece, is_first, is_last, &buf);
    if (id >= 0) {
      if (pending_unk >= 0) ids.push_back(pending_unk), pending_unk = -1;
      ids.push_back(id);
      continue;
    }
    if (byte_fallback_) {
      std::string_view bytes = piece;
      if (prefix_ || suffix_) {
        buf.clear();
        if (!is_first && prefix_) buf.append(*prefix_);
        buf.append(piece);
        if (is_last && suffix_) buf.append(*suffix_);
        bytes = buf;
      }
      bool all = true;
      for (char c : bytes) all = all && byte_ids_[static_cast<unsigned char>(c)] >= 0;
      if (all) {
        for (char c : bytes) ids.push_back(byte_ids_[static_cast<unsigned char>(c)]);
        continue;
      }
    }
    if (unk_token_) {
      if (pending_unk >= 0 && !fuse_unk_) ids.push_back(pending_unk);
      if (pending_unk < 0 || !fuse_unk_) pending_unk = unk_id_;
      // An unk token missing from the vocabulary is rejected at load time (see Pipeline).
    }
  }
  if (pending_unk >= 0) ids.push_back(pending_unk);
  MergeAll(&ids);
  out->insert(out->end(), ids.begin(), ids.end());
}

void BpeModel::MergeAll(std::vector<int32_t>* ids_inout) const {
  std::vector<int32_t>& ids = *ids_inout;
  const int n = static_cast<int>(ids.size());
  if (n < 2) return;
  std::vector<int32_t> prev(n), next(n);
  std::vector<char> alive(n, 1);
  for (int i = 0; i < n; ++i) prev[i] = i - 1, next[i] = i + 1 < n ? i + 1 : -1;
  struct Merge {
    uint32_t rank;
    int32_t pos;
    int32_t new_id;
    bool operator<(const Merge& o) const {  // priority_queue pops the "largest"
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  auto lookup = [&](int32_t a, int32_t b) {
    return merges_.Find((static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b));
  };
  std::vector<Merge> heap_storage;
  heap_storage.reserve(n);
  std::priority_queue<Merge> queue(std::less<Merge>(), std::move(heap_storage));
  for (int i = 0; i + 1 < n; ++i) {
    if (const uint64_t* m = lookup(ids[i], ids[i + 1])) {
      queue.push({static_cast<uint32_t>(*m >> 32), i, static_cast<int32_t>(*m & 0xFFFFFFFF)});
    }
  }
  while (!queue.empty()) {
    Merge top = queue.top();
    queue.pop();
    if (!alive[top.pos] || next[top.pos] < 0) continue;
    const int right = next[top.pos];
    const uint64_t* m = lookup(ids[top.pos], ids[right]);
    if (m == nullptr || static_cast<int32_t>(*m & 0xFFFFFFFF) != top.new_id) continue;
    ids[top.pos] = top.new_id;
    alive[right] = 0;
    next[top.pos] = next[right];
    if (next[right] >= 0) prev[next[right]] = top.pos;
    if (prev[top.pos] >= 0) {
      if (const uint64_t* pm = lookup(ids[prev[top.pos]], ids[top.pos])) {
        queue.push({static_cast<uint32_t>(*pm >> 32), prev[top.pos], static_cast<int32_t>(*pm & 0xFFFFFFFF)});
      }
    }
    if (next[top.pos] >= 0) {
      if (const uint64_t* nm = lookup(ids[top.pos], ids[next[top.pos]])) {
        queue.push({static_cast<uint32_t>(*nm >> 32), top.pos, static_cast<int32_t>(*nm & 0xFFFFFFFF)});
      }
    }
  }
  int out = 0;
  for (int i = 0; i < n; ++i) {
    if (alive[i]) ids[out++] = ids[i];
  }
  ids.resize(out);
}

}  // namespace gemmad::tokenizer
