// The ISO 639-1 table (see transcription_language.h).
#include "api/transcription_language.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace gemmad::api {
namespace {

// Every ISO 639-1 code with its English name, sorted by code.
constexpr std::array<std::pair<std::string_view, std::string_view>, 183> kLanguages = {{
    {"aa", "Afar"}, {"ab", "Abkhazian"}, {"ae", "Avestan"}, {"af", "Afrikaans"}, {"ak", "Akan"},
    {"am", "Amharic"}, {"an", "Aragonese"}, {"ar", "Arabic"}, {"as", "Assamese"}, {"av", "Avaric"},
    {"ay", "Aymara"}, {"az", "Azerbaijani"}, {"ba", "Bashkir"}, {"be", "Belarusian"}, {"bg", "Bulgarian"},
    {"bi", "Bislama"}, {"bm", "Bambara"}, {"bn", "Bengali"}, {"bo", "Tibetan"}, {"br", "Breton"},
    {"bs", "Bosnian"}, {"ca", "Catalan"}, {"ce", "Chechen"}, {"ch", "Chamorro"}, {"co", "Corsican"},
    {"cr", "Cree"}, {"cs", "Czech"}, {"cu", "Church Slavic"}, {"cv", "Chuvash"}, {"cy", "Welsh"},
    {"da", "Danish"}, {"de", "German"}, {"dv", "Divehi"}, {"dz", "Dzongkha"}, {"ee", "Ewe"},
    {"el", "Greek"}, {"en", "English"}, {"eo", "Esperanto"}, {"es", "Spanish"}, {"et", "Estonian"},
    {"eu", "Basque"}, {"fa", "Persian"}, {"ff", "Fulah"}, {"fi", "Finnish"}, {"fj", "Fijian"},
    {"fo", "Faroese"}, {"fr", "French"}, {"fy", "Western Frisian"}, {"ga", "Irish"}, {"gd", "Scottish Gaelic"},
    {"gl", "Galician"}, {"gn", "Guarani"}, {"gu", "Gujarati"}, {"gv", "Manx"}, {"ha", "Hausa"},
    {"he", "Hebrew"}, {"hi", "Hindi"}, {"ho", "Hiri Motu"}, {"hr", "Croatian"}, {"ht", "Haitian Creole"},
    {"hu", "Hungarian"}, {"hy", "Armenian"}, {"hz", "Herero"}, {"ia", "Interlingua"}, {"id", "Indonesian"},
    {"ie", "Interlingue"}, {"ig", "Igbo"}, {"ii", "Sichuan Yi"}, {"ik", "Inupiaq"}, {"io", "Ido"},
    {"is", "Icelandic"}, {"it", "Italian"}, {"iu", "Inuktitut"}, {"ja", "Japanese"}, {"jv", "Javanese"},
    {"ka", "Georgian"}, {"kg", "Kongo"}, {"ki", "Kikuyu"}, {"kj", "Kuanyama"}, {"kk", "Kazakh"},
    {"kl", "Kalaallisut"}, {"km", "Khmer"}, {"kn", "Kannada"}, {"ko", "Korean"}, {"kr", "Kanuri"},
    {"ks", "Kashmiri"}, {"ku", "Kurdish"}, {"kv", "Komi"}, {"kw", "Cornish"}, {"ky", "Kyrgyz"},
    {"la", "Latin"}, {"lb", "Luxembourgish"}, {"lg", "Ganda"}, {"li", "Limburgish"}, {"ln", "Lingala"},
    {"lo", "Lao"}, {"lt", "Lithuanian"}, {"lu", "Luba-Katanga"}, {"lv", "Latvian"}, {"mg", "Malagasy"},
    {"mh", "Marshallese"}, {"mi", "Maori"}, {"mk", "Macedonian"}, {"ml", "Malayalam"}, {"mn", "Mongolian"},
    {"mr", "Marathi"}, {"ms", "Malay"}, {"mt", "Maltese"}, {"my", "Burmese"}, {"na", "Nauru"},
    {"nb", "Norwegian Bokmål"}, {"nd", "North Ndebele"}, {"ne", "Nepali"}, {"ng", "Ndonga"}, {"nl", "Dutch"},
    {"nn", "Norwegian Nynorsk"}, {"no", "Norwegian"}, {"nr", "South Ndebele"}, {"nv", "Navajo"}, {"ny", "Chichewa"},
    {"oc", "Occitan"}, {"oj", "Ojibwa"}, {"om", "Oromo"}, {"or", "Odia"}, {"os", "Ossetian"},
    {"pa", "Punjabi"}, {"pi", "Pali"}, {"pl", "Polish"}, {"ps", "Pashto"}, {"pt", "Portuguese"},
    {"qu", "Quechua"}, {"rm", "Romansh"}, {"rn", "Rundi"}, {"ro", "Romanian"}, {"ru", "Russian"},
    {"rw", "Kinyarwanda"}, {"sa", "Sanskrit"}, {"sc", "Sardinian"}, {"sd", "Sindhi"}, {"se", "Northern Sami"},
    {"sg", "Sango"}, {"si", "Sinhala"}, {"sk", "Slovak"}, {"sl", "Slovenian"}, {"sm", "Samoan"},
    {"sn", "Shona"}, {"so", "Somali"}, {"sq", "Albanian"}, {"sr", "Serbian"}, {"ss", "Swati"},
    {"st", "Southern Sotho"}, {"su", "Sundanese"}, {"sv", "Swedish"}, {"sw", "Swahili"}, {"ta", "Tamil"},
    {"te", "Telugu"}, {"tg", "Tajik"}, {"th", "Thai"}, {"ti", "Tigrinya"}, {"tk", "Turkmen"},
    {"tl", "Tagalog"}, {"tn", "Tswana"}, {"to", "Tonga"}, {"tr", "Turkish"}, {"ts", "Tsonga"},
    {"tt", "Tatar"}, {"tw", "Twi"}, {"ty", "Tahitian"}, {"ug", "Uyghur"}, {"uk", "Ukrainian"},
    {"ur", "Urdu"}, {"uz", "Uzbek"}, {"ve", "Venda"}, {"vi", "Vietnamese"}, {"vo", "Volapük"},
    {"wa", "Walloon"}, {"wo", "Wolof"}, {"xh", "Xhosa"}, {"yi", "Yiddish"}, {"yo", "Yoruba"},
    {"za", "Zhuang"}, {"zh", "Chinese"}, {"zu", "Zulu"},
}};

constexpr bool SortedTwoLetterCodes() {
  for (size_t i = 0; i < kLanguages.size(); ++i) {
    if (kLanguages[i].first.size() != 2 || kLanguages[i].second.empty()) return false;
    if (i > 0 && !(kLanguages[i - 1].first < kLanguages[i].first)) return false;
  }
  return true;
}
static_assert(SortedTwoLetterCodes(), "kLanguages: every entry a two-letter code with a name, sorted, none missing");

}  // namespace

std::optional<std::string_view> LanguageName(std::string_view code) {
  for (const auto& [c, name] : kLanguages) {
    if (c == code) return name;
  }
  return std::nullopt;
}

std::string PyRepr(std::string_view s) {
  const char quote = (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos) ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out + quote;
}

ApiError UnsupportedLanguage(std::string_view code, std::string_view field) {
  std::string codes;
  for (const auto& [c, name] : kLanguages) codes += fmt::format("{}'{}'", codes.empty() ? "" : ", ", c);
  return ApiError::BadRequest(fmt::format("Unsupported language: {}.  Must be one of [{}].", PyRepr(code), codes),
                              std::string(field));
}

}  // namespace gemmad::api
