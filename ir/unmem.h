// unmem (thesis fig. 4.7): a FUNMEM program turned into the FUN program with the same
// value semantics: `mem` becomes i64, `alloc e` becomes the literal 0, and the memory
// annotations `@mem -> LMAD` are dropped. Example: `let (m : mem) = alloc n` becomes
// `let (m : i64) = 0`.
#pragma once

#include "ir/ast.h"

namespace funmem {

Program unmem(const Program& p);

} // namespace funmem
