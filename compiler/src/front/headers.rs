//! ssalab's built-in headers: the thin C library of the C-DSP subset.
//!
//! They are found by `#include` after the `-I` directories, so a program's own header of the
//! same name wins. There is one copy of each header in the repository, under
//! `programs/include/` (`ssalab.h`, with the output intrinsics and the DSP intrinsics, which the
//! host compiler also uses) and `programs/include/libc/` (the freestanding C library headers,
//! used only by ssalab); they are compiled into the front end so that `ssalab interp prog.c`
//! needs no `-I`. Functions the IR interpreter and simulator provide (`print_int`,
//! `print_char`, `printf`, `exit`, `abort`) are only declared; the rest of the library (`abs`,
//! `memcpy`, `strlen`, a static-pool `malloc`, …) is defined in the headers as `static` C
//! functions, which the lowering drops when a program does not use them.

macro_rules! builtin_headers {
    ($($name:literal => $path:literal,)*) => {
        /// The text of a built-in header, if `name` is one.
        pub fn builtin(name: &str) -> Option<&'static str> {
            match name {
                $($name => Some(include_str!($path)),)*
                _ => None,
            }
        }

        /// Names of all built-in headers.
        pub const NAMES: &[&str] = &[$($name,)*];
    };
}

builtin_headers! {
    "ssalab.h" => "../../../programs/include/ssalab.h",
    "assert.h" => "../../../programs/include/libc/assert.h",
    "ctype.h" => "../../../programs/include/libc/ctype.h",
    "float.h" => "../../../programs/include/libc/float.h",
    "limits.h" => "../../../programs/include/libc/limits.h",
    "stddef.h" => "../../../programs/include/libc/stddef.h",
    "stdint.h" => "../../../programs/include/libc/stdint.h",
    "stdio.h" => "../../../programs/include/libc/stdio.h",
    "stdlib.h" => "../../../programs/include/libc/stdlib.h",
    "string.h" => "../../../programs/include/libc/string.h",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_header_is_found() {
        for name in NAMES {
            assert!(builtin(name).is_some_and(|t| !t.is_empty()), "{name}");
        }
        assert!(builtin("math.h").is_none());
    }
}
