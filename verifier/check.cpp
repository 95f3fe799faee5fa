// Static checks of one file against its expectations (see check.h).
#include "verifier/check.h"

#include "ir/parser.h"
#include "ir/typecheck.h"

namespace funmem {

const char* expect_status_name(ExpectStatus s) {
  switch (s) {
  case ExpectStatus::Holds:
    return "holds";
  case ExpectStatus::Fails:
    return "fails";
  case ExpectStatus::Unchecked:
    return "unchecked";
  }
  return "?";
}

bool CheckReport::ok() const {
  for (const ExpectResult& e : expectations)
    if (e.status == ExpectStatus::Fails) return false;
  return true;
}

CheckReport check_source(const std::string& file, const std::string& text) {
  CheckReport r;
  r.file = file;
  r.lang = lang_of_path(file);
  ParseResult pr = parse_program(text, r.lang);
  std::vector<Expect> expects = pr.program ? pr.program->expects : pr.expects;
  if (expects.empty()) expects.push_back(Expect{"valid", "", Pos{}});
  if (pr.error) {
    r.diagnostics.push_back(*pr.error);
  } else {
    r.parsed = true;
    r.diagnostics = typecheck(*pr.program);
    r.typed = r.diagnostics.empty();
  }
  for (const Expect& e : expects) {
    ExpectResult er{e, ExpectStatus::Unchecked, ""};
    bool static_error = e.word == "error" && (e.arg == "parse" || e.arg == "type");
    if (static_error) {
      bool got = e.arg == "parse" ? !r.parsed : (r.parsed && !r.typed);
      er.status = got ? ExpectStatus::Holds : ExpectStatus::Fails;
      if (!got)
        er.detail = !r.parsed ? "the file has a parse error instead"
                    : r.typed ? "the program parses and type-checks"
                              : "the program parses; the error is a type error";
    } else if (!r.typed) {
      er.status = ExpectStatus::Fails;
      er.detail = r.parsed ? "the program does not type-check" : "the program does not parse";
    } else {
      er.detail = "needs the reference interpreters";
    }
    r.expectations.push_back(std::move(er));
  }
  return r;
}

} // namespace funmem
