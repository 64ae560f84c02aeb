"""The golden string corpus for tokenizer tests (deterministic for a given seed).

Categories: whitespace runs, a sample of every major script, emoji families (skin tones, ZWJ
sequences, flags, keycaps, tags), combining marks, code, control characters, protocol marker
strings inside text, long words, and unusual code points (noncharacters, private use, BOM,
bidi controls, U+FFFD). Random mixes of all of them make up the rest.
"""
import random

WHITESPACE = [" ", "  ", "   ", "    ", "\t", "\t\t", "\n", "\n\n", "\n\n\n", "\r\n", "\r", " \n ", "\t \n",
              "\u00a0", "\u3000", "\u2028", "\u2029", "\u2003", "\u200b", "\u0085", "\u000b", "\u000c",
              " " * 31, " " * 64, "\n" * 40, "\t" * 33, " \t" * 10]

SCRIPTS = {
    "latin": "The quick brown fox jumps over the lazy dog. Über Straße, garçon, naïve, Ångström, œuvre, Łódź",
    "greek": "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο. ΑΒΓΔ ΣΊΣΥΦΟΣ ς",
    "cyrillic": "Съешь же ещё этих мягких французских булок, да выпей чаю. Їжак ґанок",
    "armenian": "Բարեւ աշխարհ, ինչպե՞ս ես",
    "hebrew": "שלום עולם, מה שלומך? עִבְרִית",
    "arabic": "مرحبا بالعالم، كيف حالك؟ اَلْعَرَبِيَّةُ ١٢٣٤",
    "syriac": "ܫܠܡܐ ܥܠܡܐ",
    "thaana": "ދިވެހިބަސް",
    "devanagari": "नमस्ते दुनिया, आप कैसे हैं? क्षत्रिय ०१२३",
    "bengali": "হ্যালো বিশ্ব, আপনি কেমন আছেন",
    "gurmukhi": "ਸਤ ਸ੍ਰੀ ਅਕਾਲ ਦੁਨੀਆ",
    "gujarati": "હેલો વિશ્વ",
    "oriya": "ନମସ୍କାର ବିଶ୍ୱ",
    "tamil": "வணக்கம் உலகம், நீங்கள் எப்படி இருக்கிறீர்கள்",
    "telugu": "హలో ప్రపంచం",
    "kannada": "ಹಲೋ ವಿಶ್ವ",
    "malayalam": "ഹലോ ലോകം",
    "sinhala": "ආයුබෝවන් ලෝකය",
    "thai": "สวัสดีชาวโลก คุณสบายดีไหม",
    "lao": "ສະບາຍດີໂລກ",
    "tibetan": "བཀྲ་ཤིས་བདེ་ལེགས།",
    "myanmar": "မင်္ဂလာပါ ကမ္ဘာလောက",
    "georgian": "გამარჯობა მსოფლიო",
    "hangul": "안녕하세요 세계, 잘 지내세요? 한국어 ㄱㄴㄷ",
    "ethiopic": "ሰላም ልዑል ዓለም",
    "cherokee": "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ",
    "canadian": "ᐊᐃᖓᐃ ᓄᓇᕗᑦ",
    "ogham_runic": "᚛ᚑᚌᚐᚋ᚜ ᚠᚢᚦᚨᚱᚲ",
    "khmer": "សួស្តីពិភពលោក",
    "mongolian": "ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ",
    "japanese": "こんにちは世界、お元気ですか？カタカナ ｶﾀｶﾅ ﾊﾟﾝ",
    "chinese": "你好，世界！我们一起学习中文。繁體字測試",
    "yi": "ꆈꌠꁱꂷ",
    "vietnamese": "Xin chào thế giới, bạn có khỏe không? Tiếng Việt",
    "math": "∀x∈ℝ: x²≥0, ∑ᵢ aᵢ = ∫₀¹ f(x)dx ≈ 3.14159… ½ ⅓ Ⅻ ①②③ ℌ𝔄𝔟 𝟙𝟚",
    "fullwidth": "ＡＢＣａｂｃ０１２！？ｱｲｳ",
    "ligatures": "ﬁﬂﬀ ﬃ ǆ Ǳ ĳ ŉ ẞ ß",
    "gothic_old": "𐌰𐌱𐌲 𐎀𐎁 𓀀𓀁 𒀀",
}

EMOJI = ["😀", "😂🤣", "👍🏻👍🏼👍🏽👍🏾👍🏿", "👨‍👩‍👧‍👦", "👩‍❤️‍💋‍👨", "🏳️‍🌈", "🏴‍☠️", "🇺🇸🇯🇵🇫🇷",
         "🇦", "1️⃣#️⃣*️⃣", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "❤️", "❤", "☺️", "🧑🏽‍💻", "👁️‍🗨️", "🤖", "🫠🫶",
         "🐕‍🦺", "🧔‍♀️", "👩🏾‍🤝‍👩🏻", "✈︎", "🀄🃏", "©️®️™️"]

COMBINING = ["e\u0301", "e\u0301\u0301", "a\u0308\u0304", "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f"
             "\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034dA", "\u0301", "\u0301\u0302 x",
             "q\u0323\u0307", "s\u0323\u0307", "\u1100\u1161\u11a8", "\u1100\u1161", "\u0915\u094d\u0937",
             "o\u031b\u0323", "\u05e9\u05c1\u05b8", "A\u030a", "\u212b", "\u2126", "\u00c5", "ḱṷṓn",
             "\u0041\u0300\u0316", "\u0041\u0316\u0300", "\u0e01\u0e34\u0e4a", "\u0f40\u0f72\u0f71"]

CODE = [
    "def main():\n    print('hello, world')\n    return 0\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i] * b[i];\n}\n",
    '{"name": "gemmad", "ids": [1, 2, 3], "nested": {"a": null, "b": true, "c": 1.5e-7}}',
    "<html><body><div class=\"x\">Hello &amp; bye</div></body></html>",
    "SELECT * FROM users WHERE id = 42 AND name LIKE '%o%';",
    "#include <vector>\nstd::vector<int> v{1,2,3};\nauto x = v.size() >> 1;",
    "$ ls -la | grep '\\.py$' && echo \"done\" # comment",
    "x = re.compile(r'(?i:\\'s|\\'t)|[^\\r\\n\\p{L}]+')",
    "fn main() -> Result<(), Box<dyn Error>> { Ok(()) }",
    "    indented\n        more\n\t\tmixed \t tabs",
    "a=1;b=2;c=a+b;print(c)//=>3",
    "0x1F600 0b1010 1e10 3.14159265358979 -0.0 1_000_000",
    "https://example.com/path?q=a+b&lang=en#frag user@example.org",
    "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'VE 'M 'LL 'D 'ſ",
    "don't won't can't I'm you're they've he'll she'd",
]

CONTROL = ["".join(chr(c) for c in range(0, 32)), "\x7f", "".join(chr(c) for c in range(0x80, 0xa0)),
           "a\x00b", "\x1b[31mred\x1b[0m", "\x07\x08\x0b\x0c", "tab\there", "\u200e\u200f\u202a\u202e\u2066",
           "\ufeffBOM", "\ufffd", "\ufffd\ufffd", "\uffff\ufffe", "\U0010ffff", "\ue000\uf8ff", "\U000f0000",
           "\u00ad", "\u034f", "\u2060\u180e", "\U000e0001\U000e0041"]

MARKERS = ["<|turn>", "<turn|>", "<|turn>user\nHi<turn|>\n", "<start_of_turn>", "<end_of_turn>",
           "<start_of_turn>user\nhello<end_of_turn>\n", '<|"|>', '<|"|>quoted<|"|>', "<bos>", "<eos>",
           "<pad>", "<unk>", "<mask>", "[multimodal]", "<|tool_call>call:f{a:1}<tool_call|>", "<|tool>", "<tool|>",
           "<|tool_response>", "<tool_response|>", "<|think|>", "<|channel>thought\n<channel|>", "<|image|>",
           "<|audio|>", "<|video|>", "<|image>", "<image|>", "<image_soft_token>", "<unused0>", "<unused99>",
           "<unused6241>", "<|tur", "<|turn", "turn|>", "<turn", "<<|turn>>", "<|turn><|turn>", "< |turn>",
           "<0x41>", "<0x0A>", "<0xZZ>", "<s>", "</s>", "[CLS]", "[SEP]", "<|endoftext|>", "<|im_start|>",
           "▁", "▁▁hello", "Ġhello", "Ċ", "##ing", "</w>"]

LONG = ["a" * 500, "ab" * 300, "Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaft",
        "pneumonoultramicroscopicsilicovolcanoconiosis" * 3, "x" * 2000, "1234567890" * 50,
        "aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQgZW5jb2RlZCB0ZXh0" * 4, "-" * 300, "=" * 120 + "\n",
        "🤖" * 100, "日本" * 150, "é" * 200, " a" * 300, "\u0301" * 50]


def _random_text(rng, pool, max_parts=8):
    return "".join(rng.choice(pool) for _ in range(rng.randint(1, max_parts)))


def build(seed, count):
    rng = random.Random(seed)
    base = []
    base += WHITESPACE
    base += [w + "x" + w for w in WHITESPACE]
    base += list(SCRIPTS.values())
    for s in SCRIPTS.values():
        base += s.split()[:3]
        base.append(" " + s)
        base.append(s + " ")
    base += EMOJI + [" " + e for e in EMOJI] + ["x" + e + "y" for e in EMOJI]
    base += COMBINING + CODE + CONTROL + MARKERS + LONG
    base += ["word " + m + " word" for m in MARKERS]
    base += ["", "a", " ", "hello", "Hello world", " Hello world", "Hello world ", "hello\nworld"]
    chars = []
    for s in list(SCRIPTS.values()) + EMOJI + COMBINING + CONTROL:
        chars += list(s)
    pool = base + sorted(set(chars)) + ["the ", "and ", "of ", ", ", ". ", "\n", "  ", "'s", "123", "4"]
    out = list(dict.fromkeys(base))
    seen = set(out)
    while len(out) < count:
        kind = rng.random()
        if kind < 0.5:
            s = _random_text(rng, pool)
        elif kind < 0.8:
            s = "".join(rng.choice(chars) for _ in range(rng.randint(1, 40)))
        else:
            s = " ".join(rng.choice(list(SCRIPTS.values())).split()[:rng.randint(1, 6)]) + rng.choice(MARKERS + [""])
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def random_id_sequences(seed, vocab_size, special_ids, byte_ids, count):
    """Id lists for decode goldens: random ids, byte-fallback runs cut mid-character, specials."""
    rng = random.Random(seed)
    seqs = []
    for _ in range(count):
        seq = []
        for _ in range(rng.randint(1, 24)):
            r = rng.random()
            if r < 0.5:
                seq.append(rng.randrange(vocab_size))
            elif r < 0.7 and special_ids:
                seq.append(rng.choice(special_ids))
            elif byte_ids:
                seq.append(rng.choice(byte_ids))
            else:
                seq.append(rng.randrange(vocab_size))
        seqs.append(seq)
    return seqs
