"""Small tokenizers trained with HF `tokenizers` BpeTrainer, one per pipeline shape gemmad claims.

Each entry returns a Tokenizer already trained; make_goldens.py saves it (tokenizer.json) and
may rewrite parts of the JSON (legacy merges, ignore_merges, byte-fallback vocab) through the
`edit` hook, then reloads it from the file before computing goldens.
"""
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
LLAMA3 = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
          r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
QWEN2 = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
         r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
O200K = (r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
         r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
         r"""|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""")


def _train(tok, texts, latin_only=False, **kw):
    # limit_alphabet breaks frequency ties in hash order (not reproducible); restricting the
    # training text instead leaves rarer characters out of the vocabulary deterministically.
    if latin_only:
        texts = ["".join(c for c in t if ord(c) < 0x250) for t in texts]
    kw.setdefault("show_progress", False)
    tok.train_from_iterator(texts, trainer=trainers.BpeTrainer(**kw))
    return tok


def _byte_level(texts):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    _train(tok, texts, vocab_size=700, special_tokens=["<|endoftext|>"],
           initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.add_special_tokens([AddedToken("<|im_start|>", special=True, normalized=False),
                            AddedToken("<|im_end|>", special=True, normalized=False, rstrip=True)])
    tok.add_tokens([AddedToken(" hello world", normalized=True), AddedToken("Ġfoo", normalized=False)])
    return tok


def _llama3(texts):
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(LLAMA3), "isolated"),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    _train(tok, texts, vocab_size=800, special_tokens=["<|begin_of_text|>", "<|eot_id|>"],
           initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bos = tok.token_to_id("<|begin_of_text|>")
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
                                      special_tokens=[("<|begin_of_text|>", bos)])])
    return tok


def _qwen2(texts):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(QWEN2), "isolated"),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    _train(tok, texts, vocab_size=600, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
           initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.add_tokens([AddedToken("<tool_call>", normalized=False), AddedToken("</tool_call>", normalized=False)])
    return tok


def _o200k(texts):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(O200K), "isolated"),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    _train(tok, texts, vocab_size=600, special_tokens=["<|endoftext|>"],
           initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    return tok


def _metaspace(texts):
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok.decoder = decoders.Sequence([decoders.Metaspace(replacement="▁", prepend_scheme="always"),
                                     decoders.ByteFallback(), decoders.Fuse()])
    _train(tok, texts, vocab_size=700, special_tokens=["<unk>", "<s>", "</s>"], latin_only=True)
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> $B:1 </s>:1",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    tok.add_special_tokens([AddedToken("<mask>", special=True, lstrip=True, normalized=False)])
    return tok


def _llama2(texts):
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=True)
    _train(tok, texts, vocab_size=700, special_tokens=["<unk>", "<s>", "</s>"], latin_only=True)
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.pre_tokenizer = None
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B:1",
                                                       special_tokens=[("<s>", tok.token_to_id("<s>"))])
    tok.add_special_tokens([AddedToken("[INST]", special=True, normalized=False, rstrip=True),
                            AddedToken("[/INST]", special=True, normalized=False, lstrip=True)])
    tok.add_tokens([AddedToken("word", single_word=True, normalized=True),
                    AddedToken("<ph>", single_word=True, normalized=False, lstrip=True, rstrip=True)])
    return tok


def _metaspace_first(texts):
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    _train(tok, texts, vocab_size=600, special_tokens=["<unk>", "<s>", "</s>"], latin_only=True)
    tok.add_special_tokens([AddedToken("<sep>", special=True, normalized=False, single_word=True)])
    return tok


def _whitespace_digits(texts):
    tok = Tokenizer(models.BPE(unk_token="[UNK]", fuse_unk=False, continuing_subword_prefix="##"))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(),
                                                 pre_tokenizers.Digits(individual_digits=True)])
    _train(tok, texts, vocab_size=600, special_tokens=["[UNK]", "[CLS]", "[SEP]"], latin_only=True,
           continuing_subword_prefix="##")
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")),
                                                   ("[CLS]", tok.token_to_id("[CLS]")))
    tok.add_tokens([AddedToken("Hello", normalized=True), AddedToken("[ent]", normalized=True, special=False)])
    return tok


def _wsplit_nfkd(texts):
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFKD(), normalizers.Strip(left=True, right=True)])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                 pre_tokenizers.Digits(individual_digits=False)])
    _train(tok, texts, vocab_size=600, special_tokens=["<unk>", "<s>", "</s>"], latin_only=True,
           end_of_word_suffix="</w>")
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                      ("<s>", tok.token_to_id("<s>")))
    return tok


def _split_behaviors(texts):
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Lowercase(), normalizers.NFC(),
                                           normalizers.Replace(Regex(r"\d"), "0"), normalizers.Strip(left=True, right=False)])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split("-", "removed"),
        pre_tokenizers.Split(",", "merged_with_previous"),
        pre_tokenizers.Split(".", "merged_with_next"),
        pre_tokenizers.Split(Regex(r"0+"), "contiguous"),
        pre_tokenizers.Split(Regex(r"\s+"), "isolated"),
        pre_tokenizers.Split(Regex(r"[aeiou]"), "merged_with_previous", invert=True),
    ])
    tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Replace(Regex(r"\s+"), " "), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 1)])
    _train(tok, texts, vocab_size=500, special_tokens=["<unk>", "<bos>"], latin_only=True)
    tok.post_processor = processors.TemplateProcessing(single="<bos> <bos> $A <unk>", pair="$A $B",
                                                       special_tokens=[("<bos>", tok.token_to_id("<bos>")),
                                                                       ("<unk>", tok.token_to_id("<unk>"))])
    return tok


def _prefix_bytelevel(texts):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.NFC()])
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    _train(tok, texts, vocab_size=500, special_tokens=["<s>", "</s>"],
           initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                      ("<s>", tok.token_to_id("<s>")), add_prefix_space=True)
    tok.add_tokens([AddedToken("Ｈｅｌｌｏ", normalized=True)])
    return tok


def _add_byte_vocab(j):
    vocab = j["model"]["vocab"]
    nxt = max(vocab.values()) + 1
    for b in range(256):
        key = "<0x%02X>" % b
        if key not in vocab:
            vocab[key] = nxt
            nxt += 1
    # Added tokens follow the model vocabulary; move them past the new entries.
    for a in j["added_tokens"]:
        if a["content"] not in vocab:
            a["id"] = nxt
            nxt += 1


def _legacy_merges(j):
    j["model"]["merges"] = [a + " " + b for a, b in j["model"]["merges"]]
    j["model"]["ignore_merges"] = True


# name -> (builder, json edit or None)
TOKENIZERS = {
    "bytelevel_gpt2": (_byte_level, None),
    "bytelevel_legacy_merges": (_byte_level, _legacy_merges),
    "split_llama3": (_llama3, None),
    "split_qwen2": (_qwen2, None),
    "split_o200k": (_o200k, None),
    "metaspace_bytefallback": (_metaspace, _add_byte_vocab),
    "llama2_prepend_strip": (_llama2, _add_byte_vocab),
    "metaspace_first": (_metaspace_first, None),
    "whitespace_digits_bert": (_whitespace_digits, None),
    "wsplit_nfkd_roberta": (_wsplit_nfkd, None),
    "split_behaviors": (_split_behaviors, _add_byte_vocab),
    "bytelevel_prefix_roberta": (_prefix_bytelevel, None),
}
