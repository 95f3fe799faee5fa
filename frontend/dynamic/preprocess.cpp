// The race detector's build by g++ of the text clang parsed (see preprocess.h).
#include "frontend/dynamic/preprocess.h"

#include "frontend/cuda/parse.h"
#include "frontend/dynamic/harness.h"
#include "frontend/model/gpuverify_header.h"
#include "support/files.h"
#include "support/process.h"

#include <clang/Lex/Lexer.h>
#include <clang/Lex/MacroArgs.h>
#include <clang/Lex/PreprocessingRecord.h>
#include <clang/Lex/Preprocessor.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

namespace funmem::frontend::detail {

using namespace clang;

namespace {

/// A predefined macro: whether it is function-like, and `(params) body` (its body alone
/// for an object-like one) with single spaces between tokens.
struct Predefined {
  bool function = false;
  std::string text;
  bool operator==(const Predefined& o) const { return function == o.function && text == o.text; }
};
using MacroTable = std::map<std::string, Predefined>;

/// Reads `#define NAME BODY` and `#undef NAME` lines (a predefines buffer, `-dM` output).
MacroTable read_macro_table(const std::string& text) {
  MacroTable out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::string directive, name;
    ls >> directive >> name;
    if (directive == "#undef") {
      out.erase(name);
      continue;
    }
    if (directive != "#define" || name.empty()) continue;
    std::string params;
    if (size_t open = name.find('('); open != std::string::npos) {
      // `NAME(a,b)` up to its `)`, which may follow spaces.
      params = name.substr(open);
      name = name.substr(0, open);
      while (params.find(')') == std::string::npos && ls >> directive)
        params += directive;
    }
    std::string body, word;
    while (ls >> word)
      body += (body.empty() ? "" : " ") + word;
    out[name] = {!params.empty(), params.empty() ? body : params + " " + body};
  }
  return out;
}

/// The builtin macros (`__LINE__`, `__has_builtin`, ...) that g++ expands as clang does.
bool same_builtin(const std::string& name, bool main_file) {
  static const std::set<std::string> same = {"__LINE__", "__COUNTER__", "_Pragma",
                                             "__INCLUDE_LEVEL__"};
  // `__FILE__`: the main file's name is set by a #line; a header's path is g++'s.
  return same.count(name) > 0 || (name == "__FILE__" && main_file);
}

/// What a preprocessing run of the file sees of the predefined macros: the ones it uses
/// whose values differ between clang and g++ (`differs`), in the main file outside its
/// conditional directives (`blanked`, 0-based lines) or in a user header. Uses that
/// g++ cannot be made to see alike are `errors`.
class MacroWatch : public PPCallbacks {
public:
  MacroWatch(Preprocessor& pp, const MacroTable& host, const std::set<unsigned>& blanked,
             MacroTable& clang_table, std::set<std::string>& used, std::vector<std::string>& errors)
      : pp_(pp), sm_(pp.getSourceManager()), host_(host), blanked_(blanked),
        clang_table_(clang_table), used_(used), errors_(errors) {}

  void MacroExpands(const Token& t, const MacroDefinition& md, SourceRange,
                    const MacroArgs*) override {
    const MacroInfo* mi = md.getMacroInfo();
    note(t, mi);
    // A system header's macro that names an identifier clang does not define, which
    // g++ (with its own headers) may: `#if SYS_FLAG` reads it as 0 in clang.
    if (!mi || !from_system(mi->getDefinitionLoc()) || !user_place(t.getLocation())) return;
    for (const Token& b : mi->tokens()) {
      const IdentifierInfo* ii = b.getIdentifierInfo();
      if (!ii || ii->hasMacroDefinition() ||
          std::find(mi->param_begin(), mi->param_end(), ii) != mi->param_end())
        continue;
      use(ii->getName().str(), t.getLocation(), true);
    }
  }
  void Defined(const Token& t, const MacroDefinition& md, SourceRange) override {
    note(t, md.getMacroInfo());
  }
  void Ifdef(SourceLocation, const Token& t, const MacroDefinition& md) override {
    note(t, md.getMacroInfo());
  }
  void Ifndef(SourceLocation, const Token& t, const MacroDefinition& md) override {
    note(t, md.getMacroInfo());
  }
  void Elifdef(SourceLocation, const Token& t, const MacroDefinition& md) override {
    note(t, md.getMacroInfo());
  }
  void Elifndef(SourceLocation, const Token& t, const MacroDefinition& md) override {
    note(t, md.getMacroInfo());
  }
  void FileChanged(SourceLocation l, FileChangeReason reason, SrcMgr::CharacteristicKind,
                   FileID) override {
    if (reason == EnterFile && l.isValid() && user_file(l)) files_.insert(sm_.getFileID(l));
  }
  /// Every identifier of the file and its user headers (outside the main file's
  /// conditional directives): one that clang does not define is a plain name there,
  /// but g++ may define it (`#if __GNUC_STDC_INLINE__` in a header).
  void EndOfMainFile() override {
    clang_table_ = read_macro_table(pp_.getPredefines());
    files_.insert(sm_.getMainFileID());
    for (FileID f : files_) {
      Lexer lex(f, sm_.getBufferOrFake(f), sm_, pp_.getLangOpts());
      Token t;
      for (lex.LexFromRawLexer(t); t.isNot(tok::eof); lex.LexFromRawLexer(t))
        if (t.is(tok::raw_identifier) && t.getRawIdentifier().startswith("_") &&
            user_place(t.getLocation()))
          use(t.getRawIdentifier().str(), t.getLocation(), false);
    }
    for (const auto& [name, at] : pending_) {
      const Predefined* c = find(clang_table_, name);
      const Predefined* h = find(host_, name);
      if (c && h && *c == *h) continue;
      if (!c && !h) continue;
      if (at.empty())
        used_.insert(name);
      else
        errors_.push_back(at);
    }
  }

private:
  static const Predefined* find(const MacroTable& t, const std::string& name) {
    auto it = t.find(name);
    return it == t.end() ? nullptr : &it->second;
  }
  bool from_system(SourceLocation l) const {
    if (l.isInvalid()) return false;
    l = sm_.getSpellingLoc(l);
    if (sm_.isWrittenInBuiltinFile(l) || sm_.isWrittenInCommandLineFile(l)) return false;
    return sm_.isInSystemHeader(l) || !user_file(l);
  }
  /// The main file or a header of the user's (not a system one, not funmem's own).
  /// (By the file the text is in: the predefined macros' buffer has no file, and a
  /// `#line` names another.)
  bool user_file(SourceLocation l) const {
    l = sm_.getSpellingLoc(l);
    if (in_main(l)) return true;
    const FileEntry* fe = sm_.getFileEntryForID(sm_.getFileID(l));
    return fe && !sm_.isInSystemHeader(l) && !fe->getName().startswith("/funmem-extract/");
  }
  bool in_main(SourceLocation l) const { return sm_.getFileID(l) == sm_.getMainFileID(); }
  /// Whether a use at `l` is one that g++ evaluates in its own build: in the user's
  /// text, not on a line of the main file that is blanked.
  bool user_place(SourceLocation l) const {
    const SourceLocation at = sm_.getExpansionLoc(l);
    if (!user_file(at)) return false;
    if (!in_main(at)) return true;
    return blanked_.count(sm_.getExpansionLineNumber(at) - 1) == 0;
  }
  void note(const Token& t, const MacroInfo* mi) {
    const IdentifierInfo* ii = t.getIdentifierInfo();
    if (!ii || !user_place(t.getLocation())) return;
    const std::string name = ii->getName().str();
    if (mi && mi->isBuiltinMacro()) {
      if (!same_builtin(name, in_main(sm_.getExpansionLoc(t.getLocation()))))
        errors_.push_back(refusal(sm_, t.getLocation(),
                                  "the builtin macro " + name +
                                      " outside the main file's conditional directives (g++ "
                                      "would expand it otherwise)"));
      return;
    }
    // A macro of a file's #define: the same text in both builds.
    if (mi && !sm_.isWrittenInBuiltinFile(mi->getDefinitionLoc()) &&
        !sm_.isWrittenInCommandLineFile(mi->getDefinitionLoc()))
      return;
    use(name, t.getLocation(), from_system(t.getLocation()));
  }
  /// A use of a name that may be predefined, decided once both tables are known: where
  /// a system header's text (or a pasted token) names it, g++'s header may not.
  void use(const std::string& name, SourceLocation l, bool system_text) {
    std::string& at = pending_[name];
    if (system_text && at.empty())
      at = refusal(sm_, l,
                   "the predefined macro " + name +
                       " reached through a system header's macro (g++'s headers and "
                       "predefined macros are not clang's)");
  }

  Preprocessor& pp_;
  const SourceManager& sm_;
  const MacroTable& host_;
  const std::set<unsigned>& blanked_;
  MacroTable& clang_table_;
  std::set<std::string>& used_;
  std::vector<std::string>& errors_;
  std::set<FileID> files_;
  /// Per name: the refusal if a system header's text reaches it, else empty.
  std::map<std::string, std::string> pending_;
};

/// The main file's lines that g++ must not see as they are: those clang skipped, and
/// every conditional directive (its continuation lines too); 0-based.
std::set<unsigned> blanked_lines(ASTUnit& ast, std::vector<std::string>& errors) {
  SourceManager& sm = ast.getSourceManager();
  Preprocessor& pp = ast.getPreprocessor();
  const FileID main = sm.getMainFileID();
  const llvm::StringRef text = sm.getBufferData(main);
  std::set<unsigned> lines;
  auto line_of = [&](unsigned offset) {
    return static_cast<unsigned>(std::count(text.begin(), text.begin() + offset, '\n'));
  };
  PreprocessingRecord* rec = pp.getPreprocessingRecord();
  if (!rec) {
    errors.push_back("error: cannot instrument: no preprocessing record");
    return lines;
  }
  for (SourceRange r : rec->getSkippedRanges()) {
    if (sm.getFileID(r.getBegin()) != main) continue;
    for (unsigned l = line_of(sm.getFileOffset(r.getBegin()));
         l <= line_of(sm.getFileOffset(r.getEnd())); ++l)
      lines.insert(l);
  }
  std::vector<unsigned> starts{0};
  for (unsigned i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  // The conditional directives as clang lexes them (not a `#if` line inside a raw
  // string or continuing another line): from the `#` to the next token that starts a line.
  Lexer lex(main, sm.getBufferOrFake(main), sm, pp.getLangOpts());
  lex.SetCommentRetentionState(false);
  Token t;
  lex.LexFromRawLexer(t);
  while (t.isNot(tok::eof)) {
    if (!(t.is(tok::hash) && t.isAtStartOfLine())) {
      lex.LexFromRawLexer(t);
      continue;
    }
    const unsigned from = line_of(sm.getFileOffset(t.getLocation()));
    lex.LexFromRawLexer(t);
    const std::string kw = t.is(tok::raw_identifier) ? t.getRawIdentifier().str() : "";
    static const std::set<std::string> conds = {"if",      "ifdef",    "ifndef", "elif",
                                                "elifdef", "elifndef", "else",   "endif"};
    const bool cond = conds.count(kw) > 0 && !t.isAtStartOfLine();
    unsigned last = from;
    while (t.isNot(tok::eof) && !t.isAtStartOfLine()) {
      last = line_of(sm.getFileOffset(t.getLocation()));
      lex.LexFromRawLexer(t);
    }
    if (cond)
      for (unsigned l = from; l <= last; ++l)
        lines.insert(l);
    // A continued line after the last token (`#else \`) belongs to the directive too.
    while (cond && last + 1 < starts.size() &&
           text.substr(starts[last]).split('\n').first.rtrim("\r").endswith("\\"))
      lines.insert(++last);
  }
  return lines;
}

} // namespace

HostArgs host_args(const std::vector<std::string>& clang_args, std::vector<std::string>& errors) {
  HostArgs out;
  for (size_t i = 0; i < clang_args.size(); ++i) {
    const std::string& a = clang_args[i];
    auto starts = [&](const char* p) { return a.rfind(p, 0) == 0; };
    if (a == "-D" || a == "-U" || a == "-I" || a == "-include" || a == "-isystem" ||
        a == "-iquote" || a == "-idirafter") {
      if (i + 1 == clang_args.size()) {
        errors.push_back("error: the clang argument '" + a + "' has no value");
        break;
      }
      (a == "-D" || a == "-U" ? out.macros : out.paths) +=
          " " + a + " " + shell_quote(clang_args[++i]);
    } else if (starts("-D") || starts("-U") || starts("-std=") || a == "-funsigned-char" ||
               a == "-fsigned-char" || a == "-fno-signed-char" || a == "-fno-unsigned-char") {
      out.macros += " " + shell_quote(a);
    } else if (starts("-I") || starts("-isystem") || starts("-iquote") || starts("-idirafter")) {
      out.paths += " " + shell_quote(a);
    } else if (!(starts("-W") || a == "-w")) {
      errors.push_back("error: the clang argument '" + a +
                       "' has no counterpart in the detector's build (it takes -D, -U, -I, "
                       "-include, -isystem, -iquote, -idirafter, -std=, -f[no-]signed-char, "
                       "-f[no-]unsigned-char, and leaves out -W and -w)");
    }
  }
  return out;
}

std::string host_preprocessing(ASTUnit& ast, Rewriter& rw, const std::string& code,
                               const std::string& file, const std::vector<std::string>& clang_args,
                               const std::string& host_macros, std::vector<std::string>& errors) {
  SourceManager& sm = ast.getSourceManager();
  const FileID main = sm.getMainFileID();
  const llvm::StringRef text = sm.getBufferData(main);
  const std::set<unsigned> lines = blanked_lines(ast, errors);
  std::vector<unsigned> starts{0};
  for (unsigned i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  for (unsigned l : lines) {
    const unsigned end = l + 1 < starts.size() ? starts[l + 1] - 1 : text.size();
    if (end > starts[l]) rw.ReplaceText(sm.getComposedLoc(main, starts[l]), end - starts[l], "");
  }
  // The instrumentation's names are the runtime's: a macro of the file may not take them.
  if (PreprocessingRecord* rec = ast.getPreprocessor().getPreprocessingRecord())
    for (PreprocessedEntity* e : *rec)
      if (const auto* d = dyn_cast_or_null<MacroDefinitionRecord>(e);
          d && d->getName()->getName().startswith("fmr"))
        errors.push_back(refusal(sm, d->getLocation(),
                                 "a file that defines the macro '" + d->getName()->getName().str() +
                                     "' (the detector's names start with fmr)"));
  // g++'s predefined macros, with the build's flags and the file's GPUVerify macros.
  std::string defines;
  for (const std::string& a : read_gpuverify_header(code).clang_args)
    defines += " " + shell_quote(a);
  std::string listing;
  if (run_command(std::string("g++ ") + kHostFlags + defines + host_macros +
                      " -dM -E -x c++ /dev/null 2>&1",
                  &listing) != 0) {
    errors.push_back("error: cannot list g++'s predefined macros: " + listing);
    return "";
  }
  const MacroTable host = read_macro_table(listing);
  MacroTable clang_table;
  std::set<std::string> used;
  std::vector<std::string> refused;
  const bool ran = preprocess_device_code(code, file, clang_args, [&](Preprocessor& pp) {
    return std::make_unique<MacroWatch>(pp, host, lines, clang_table, used, refused);
  });
  if (!ran) errors.push_back(file + ": error: cannot instrument: the file does not preprocess");
  errors.insert(errors.end(), refused.begin(), refused.end());
  // The used predefined macros that differ, as clang defines them (or not at all).
  std::string prelude;
  for (const std::string& name : used) {
    prelude += "#undef " + name + "\n";
    auto it = clang_table.find(name);
    if (it == clang_table.end()) continue;
    if (it->second.function) {
      errors.push_back(file +
                       ": error: cannot instrument: the file uses the predefined "
                       "function-like macro " +
                       name + ", which g++ defines otherwise");
      continue;
    }
    prelude += "#define " + name + " " + it->second.text + "\n";
  }
  return prelude;
}

std::string precompiled_runtime(const std::string& text, const std::string& flags) {
  namespace fs = std::filesystem;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  static const std::string version = [] {
    std::string v;
    run_command("g++ -dumpfullversion", &v, nullptr);
    return v;
  }();
  std::error_code ec;
  const size_t key = std::hash<std::string>{}(text + '\n' + version + '\n' + flags);
  std::ostringstream name;
  name << "funmem-race-rt-" << std::hex << key;
  const fs::path dir = fs::temp_directory_path(ec) / name.str();
  const fs::path header = dir / "funmem_race_rt.h";
  if (fs::exists(dir / "funmem_race_rt.h.gch", ec)) return header.string();
  fs::create_directories(dir, ec);
  // The header first (the .gch is used only where the header is found).
  if (!fs::exists(header, ec)) {
    fs::path tmp = header;
    tmp += "." + std::to_string(::getpid()) + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary);
      out << text;
      if (!out) return "";
    }
    fs::rename(tmp, header, ec);
    if (ec) return "";
  }
  precompile_header(header.string(), "g++ " + flags);
  return header.string();
}

std::string host_build_command(const Instrumented& ins, const std::string& defines,
                               const std::string& own_dir, const std::string& work_dir,
                               const std::string& src, const std::string& binary) {
  namespace fs = std::filesystem;
  std::string rt;
  // One precompiled runtime per runtime text and compiler (62 MB): not per distinct
  // macro set of a file, nor where the user's paths may bring headers before it.
  if (defines.empty() && ins.host_args.empty())
    rt = precompiled_runtime(race_runtime_header(), kHostFlags);
  if (rt.empty()) rt = (fs::path(work_dir) / "funmem_race_rt.h").string();
  return std::string("g++ ") + kHostFlags + defines + " -iquote " + shell_quote(own_dir) +
         ins.host_args + " -I" + shell_quote((fs::path(work_dir) / "include").string()) +
         " -include " + shell_quote(rt) + " -x c++ " + shell_quote(src) + " -o " +
         shell_quote(binary) + " 2>&1";
}

} // namespace funmem::frontend::detail
