"""The tiny reference configs T1-T3 of ../shared/spec/text-model.md §14 (Gemma4TextConfig kwargs).

Keep identical to src/model/gemma4/presets.cc (t1, t2, t3): GoldenCheckpointsTest (ctest label golden)
parses the committed config.json files and compares them with the C++ presets.
"""

S, F = "sliding_attention", "full_attention"

COMMON = dict(
    vocab_size=512,
    rms_norm_eps=1e-6,
    hidden_activation="gelu_pytorch_tanh",
    tie_word_embeddings=True,
    attention_bias=False,
    pad_token_id=0,
    bos_token_id=2,
    eos_token_id=1,
    rope_parameters={
        S: {"rope_type": "default", "rope_theta": 10000.0},
        F: {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0},
    },
    max_position_embeddings=256,
    use_bidirectional_attention=None,
)

T1 = dict(
    COMMON,
    hidden_size=64, intermediate_size=128, num_hidden_layers=7,
    layer_types=[S, S, F, S, S, S, F],
    num_attention_heads=4, num_key_value_heads=2, num_global_key_value_heads=None,
    head_dim=16, global_head_dim=32, attention_k_eq_v=False, sliding_window=4,
    num_kv_shared_layers=3, use_double_wide_mlp=True,
    hidden_size_per_layer_input=8, vocab_size_per_layer_input=512,
    enable_moe_block=False, final_logit_softcapping=30.0,
)

T2 = dict(
    COMMON,
    hidden_size=64, intermediate_size=48, num_hidden_layers=6,
    layer_types=[S, S, F, S, S, F],
    num_attention_heads=4, num_key_value_heads=2, num_global_key_value_heads=1,
    head_dim=16, global_head_dim=32, attention_k_eq_v=True, sliding_window=8,
    num_kv_shared_layers=0, use_double_wide_mlp=False,
    hidden_size_per_layer_input=0,
    enable_moe_block=True, num_experts=8, top_k_experts=2, moe_intermediate_size=24,
    final_logit_softcapping=5.0,
)

T3 = dict(
    COMMON,
    hidden_size=96, intermediate_size=64, num_hidden_layers=8,
    layer_types=[S, S, S, F, S, S, S, F],
    num_attention_heads=6, num_key_value_heads=2, num_global_key_value_heads=1,
    head_dim=16, global_head_dim=64, attention_k_eq_v=True, sliding_window=6,
    num_kv_shared_layers=4, use_double_wide_mlp=True,
    hidden_size_per_layer_input=16, vocab_size_per_layer_input=512,
    enable_moe_block=True, num_experts=4, top_k_experts=2, moe_intermediate_size=32,
    final_logit_softcapping=30.0,
)

MODELS = {"t1": T1, "t2": T2, "t3": T3}
