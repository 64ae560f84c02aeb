// Fuzz target for the gemma4 reasoning parser (see parse_fuzz_common.h).
// gemmad-fuzz-libs: gemmad_parse
#include "parse/reasoning/reasoning_parser.h"
#include "parse_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gemmad::parse;
  if (size == 0) return 0;
  const uint8_t control = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  ReasoningOptions options;
  options.prompt_in_reasoning = (control & 0x40) != 0;
  options.keep_markers_in_content = (control & 0x80) != 0;
  fuzz::CheckInvariance(text, control, !options.keep_markers_in_content,
                        [&](const std::vector<std::string_view>& pieces) {
                          auto parser = MakeReasoningParser("gemma4", options);
                          fuzz::Outcome o;
                          MessageAssembler a;
                          for (auto p : pieces) {
                            for (auto& d : (*parser)->Feed(p)) o.deltas.push_back(std::move(d));
                          }
                          for (auto& d : (*parser)->Finish()) o.deltas.push_back(std::move(d));
                          a.Add(o.deltas);
                          o.message = a.Build();
                          return o;
                        });
  return 0;
}
