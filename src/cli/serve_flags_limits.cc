// `gemmad serve` flags: the bounds every request is held to before work starts (gemmad's own
// flags; vLLM has none of them). Exceeding one is a 400 (413 for the body) naming the flag.
#include "cli/serve_flags.h"

namespace gemmad::cli {
namespace {

using enum FlagType;
constexpr FlagEffect kYes = FlagEffect::kEffective;

constexpr FlagSpec kFlags[] = {
    {"max-request-body-bytes", kInt, "67108864", "Largest request body; a larger one is answered 413.", kYes, {}, {},
     "e2e test_hostile_input"},
    {"request-body-timeout", kFloat, "60",
     "Seconds a request's body may take to arrive after its headers (headers: 5 s); then 408 and close.", kYes, {},
     {}, "unit HttpServerTest"},
    {"max-request-json-depth", kInt, "64",
     "Deepest nesting of arrays/objects in a request body (and in JSON given as a string, e.g. a schema).", kYes,
     {}, {}, "e2e test_hostile_input"},
    {"max-tools", kInt, "128", "Most tools one request may declare.", kYes, {}, {}, "e2e test_hostile_input"},
    {"max-sequences-per-request", kInt, "1024",
     "Most output sequences one request may ask for (prompts x n); vLLM bounds n alone (16384).", kYes, {}, {},
     "e2e test_hostile_input"},
    {"max-stop-strings", kInt, "64", "Most stop strings one request may give.", kYes, {}, {},
     "e2e test_hostile_input"},
    {"max-stop-string-bytes", kInt, "1024", "Longest stop string, in bytes.", kYes, {}, {}, "e2e test_hostile_input"},
    {"structured-outputs-compile-timeout", kFloat, "10",
     "CPU seconds one grammar (JSON schema, regex, EBNF, forced tool call) may take to compile.", kYes, {}, {},
     "e2e test_hostile_input"},
    {"structured-outputs-max-compile-bytes", kInt, "536870912",
     "Memory one grammar's compilation may take (automata and token masks).", kYes, {}, {},
     "e2e test_hostile_input"},
    {"structured-outputs-max-concurrent-compiles", kInt, "0",
     "Grammar compilations running at once (cache hits never wait); 0: half the CPU cores, at least 1.", kYes,
     {}, {}, "unit CompileBudgetTest"},
    {"structured-outputs-max-nesting", kInt, "64",
     "Deepest nesting of a JSON schema, regex groups or EBNF parentheses.", kYes, {}, {}, "e2e test_hostile_input"},
    {"max-template-steps", kInt, "20000000",
     "Evaluation steps (nodes and loop iterations) one chat-template rendering may take.", kYes, {}, {},
     "e2e test_hostile_input"},
    {"max-template-output-bytes", kInt, "67108864", "Largest text one chat-template rendering may produce.", kYes,
     {}, {}, "e2e test_hostile_input"},
};

}  // namespace

FlagTable ServeLimitFlags() { return kFlags; }

}  // namespace gemmad::cli
