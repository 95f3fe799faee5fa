// IMP printing: thesis listing 4.3 built as an AST prints in the documented form.
#include "ir/imp.h"

#include <catch2/catch.hpp>

using funmem::mk_var;
using funmem::Name;
using funmem::ScalarType;
using namespace funmem::imp;

TEST_CASE("IMP prints listing 4.3's shape", "[ir][imp]") {
  Program p;
  p.name = Name{"listing43", {}};
  p.params = {Param{Name{"xsize", {}}, false, ScalarType::I64},
              Param{Name{"zcond", {}}, false, ScalarType::Bool}};
  Block then_b = {Stmt{Alloc{Name{"xmem", {}}, mk_var("xsize")}, {}},
                  Stmt{Loop{true,
                            Name{"i", {}},
                            mk_var("xsize"),
                            {Stmt{Write{Name{"xmem", {}}, mk_var("i"), mk_var("i")}, {}}}},
                       {}},
                  Stmt{Assign{Name{"zmem", {}}, mk_var("xmem")}, {}}};
  p.body = {Stmt{Decl{Name{"zmem", {}}, true, ScalarType::I64}, {}},
            Stmt{If{mk_var("zcond"), then_b, {Stmt{Skip{}, {}}}}, {}}};
  p.results = {Name{"zmem", {}}};
  CHECK(print(p) == "def listing43 (xsize : i64, zcond : bool) =\n"
                    "  var zmem : mem ;\n"
                    "  if zcond then\n"
                    "    xmem <- alloc xsize ;\n"
                    "    kernel i < xsize do\n"
                    "      xmem[i] <- i ;\n"
                    "    done ;\n"
                    "    zmem <- xmem ;\n"
                    "  else\n"
                    "    skip ;\n"
                    "  fi ;\n"
                    "  return (zmem)\n");
  Program q = p;
  CHECK(q == p);
  std::get<If>(q.body[1].node).cond = mk_var("other");
  CHECK(!(q == p));
}
