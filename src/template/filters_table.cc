// The filter name table (jinja2 names, including aliases such as `e` and `d`).
#include "template/filters.h"

namespace gemmad::tmpl::internal {

extern const std::pair<const char*, FilterFn> kFilterTable[] = {
    {"abs", FAbs}, {"attr", FAttr}, {"batch", FBatch}, {"capitalize", FCapitalize},
    {"center", FCenter}, {"count", FLength}, {"d", FDefault}, {"default", FDefault},
    {"dictsort", FDictsort}, {"e", FEscape}, {"escape", FEscape}, {"first", FFirst},
    {"float", FFloat}, {"forceescape", FEscape}, {"format", FFormat}, {"indent", FIndent},
    {"int", FInt}, {"items", FItems}, {"join", FJoin}, {"last", FLast}, {"length", FLength},
    {"list", FList}, {"lower", FLower}, {"map", FMap}, {"max", FMax}, {"min", FMin},
    {"reject", FReject}, {"rejectattr", FRejectattr}, {"replace", FReplace},
    {"reverse", FReverse}, {"round", FRound}, {"safe", FSafe}, {"select", FSelect},
    {"selectattr", FSelectattr}, {"sort", FSort}, {"string", FString}, {"sum", FSum},
    {"title", FTitle}, {"tojson", FTojson}, {"trim", FTrim}, {"truncate", FTruncate},
    {"unique", FUnique}, {"upper", FUpper}, {"wordcount", FWordcount},
};
extern const size_t kFilterTableSize = sizeof(kFilterTable) / sizeof(kFilterTable[0]);

}  // namespace gemmad::tmpl::internal
