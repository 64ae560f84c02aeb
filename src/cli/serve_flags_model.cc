// `gemmad serve` flags: model, tokenizer, dtype, context length, multimodal inputs.
#include "cli/serve_flags.h"

namespace gemmad::cli {
namespace {

using enum FlagType;
constexpr FlagEffect kYes = FlagEffect::kEffective;
constexpr FlagEffect kNotYet = FlagEffect::kAccepted;

constexpr FlagSpec kFlags[] = {
    {"model", kString, "",
     "Model: a local directory or a Hugging Face repo id (cache: HF_HUB_CACHE / HF_HOME); also positional.",
     kYes, {}, {}, "e2e test_seeds"},
    {"revision", kString, "(main)", "Branch, tag or commit of a hub model.", kYes, {}, {}, "unit HubTest, e2e test_revision"},
    {"tokenizer", kString, "(the model)", "Tokenizer directory, repo id, or a GGUF file (its tokenizer and template).",
     kYes, {}, {}, "e2e test_tokenizer_revision test_goldens test_gguf_mmproj"},
    {"tokenizer-revision", kString, "", "Revision of --tokenizer.", kYes, {}, {}, "e2e test_tokenizer_revision"},
    {"mmproj", kString, "(beside the GGUF)",
     "llama.cpp: the mmproj GGUF holding a GGUF model's vision/audio encoders (default: as vLLM finds it, the first of "
     "mmproj.gguf, mmproj-*.gguf, *mmproj*.gguf in the model file's directory).",
     kYes, {}, {}, "unit GgufMmprojTest, golden VisionGolden AudioGolden, e2e test_gguf_mmproj"},
    {"no-mmproj", kBool, "false", "llama.cpp: serve a GGUF model's text only, reading no mmproj companion.", kYes, {},
     {}, "unit GgufMmprojTest, e2e test_gguf_mmproj"},
    {"tokenizer-mode", kString, "auto", "Tokenizer implementation.", kNotYet},
    {"trust-remote-code", kBool, "false", "Run checkpoint code (never needed by gemmad).", kNotYet},
    {"download-dir", kString, "", "Hub cache the model is downloaded to and loaded from (default: the HF cache).", kYes,
     {}, {}, "e2e test_hf_token_and_download_dir"},
    {"hf-token", kString, "", "Bearer token for hub downloads (default: env HF_TOKEN, then $HF_HOME/token).", kYes, {}, {},
     "e2e test_hf_token_and_download_dir"},
    {"load-format", kString, "auto", "Weight file format.", kNotYet},
    {"dtype", kString, "auto",
     "Compute dtype: the KV cache type and embedding-scale rounding (auto: bfloat16 for a bf16 checkpoint, else "
     "float32); weights stay as stored, activations are float32; half/float16: bfloat16, with a warning (no f16 "
     "KV path on the CPU).",
     kYes, "auto|half|float16|bfloat16|float|float32", {}, "unit ServeOptionsTest ComputeDtype, e2e test_dtype_is_the_compute_and_kv_dtype"},
    {"quantization", kString, "none",
     "Quantize the weights at load time: int8 (per channel) or int4 (groups of 32). A checkpoint that carries its own "
     "quantization (compressed-tensors) runs as stored; then only its method name is accepted here, as in vLLM.",
     kYes, "int8|int4|none|compressed-tensors", "-q", "unit ServeOptionsTest, e2e test_quantization, e2e test_compressed_tensors"},
    {"max-model-len", kTokenCount, "(model config)",
     "Context length (prompt + output); -1/auto: the largest the KV budget holds.", kYes, {}, {},
     "unit ServeOptionsTest KvPlan, e2e test_startup"},
    {"seed", kInt, "0", "Global seed for sampling without a request seed.", kYes, {}, {}, "e2e test_seed_makes_unseeded_requests_reproducible"},
    {"enforce-eager", kBool, "false", "GPU only (no GPU backend): disable CUDA graphs.", kNotYet},
    {"language-model-only", kBool, "false",
     "Load no vision or audio tower and refuse media (vLLM's \"At most 0 image(s)\" error).", kYes, {}, {},
     "e2e test_images test_audio"},
    {"limit-mm-per-prompt", kMmLimits, "",
     "Max items per modality per prompt: JSON, image=4,audio=1 or --limit-mm-per-prompt.audio 0.", kYes,
     {}, {}, "unit FlagParserTest ChatMediaTest, e2e test_images test_audio"},
    {"mm-processor-kwargs", kJson, "",
     "Default image processor options: max_soft_tokens 70|140|280|560|1120 (a request's own override it).", kYes, {},
     {}, "e2e test_images"},
    {"allowed-local-media-path", kString, "",
     "Directory whose files requests may name as file:// media URLs (unset: file:// is refused).", kYes, {}, {},
     "unit FileUrls, e2e test_images test_audio"},
    {"allowed-media-domains", kStringList, "",
     "Hosts http(s) media URLs may name, on every redirect too (unset: any public host).", kYes, {}, {},
     "e2e test_images"},
    {"allow-private-media-addresses", kBool, "false",
     "gemmad: let media URLs reach loopback, private and link-local addresses (refused by default).", kYes, {}, {},
     "unit MediaSource, e2e test_images"},
    {"max-media-bytes", kInt, "67108864", "gemmad: the largest media item (after base64 decoding or download) in bytes.",
     kYes, {}, {}, "e2e test_images test_audio"},
    {"disable-chunked-mm-input", kBool, "false", "Schedule multimodal items in one step.", kNotYet},
    {"mm-encoder-tp-mode", kString, "weights", "Multi-GPU only (no GPU backend): encoder parallelism.", kNotYet,
     "weights|data"},
};

}  // namespace

FlagTable ServeModelFlags() { return kFlags; }

}  // namespace gemmad::cli
