//! Big-endian field reads and writes at a byte offset: the one place a
//! view turns bytes into numbers (callers have checked the length); the
//! macros that declare views; and why bytes are no header.

/// Why bytes do not hold a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The buffer ends inside the header.
    Truncated,
    /// A field contradicts the header's own format (version, IHL).
    Malformed,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Error::Truncated => "the buffer ends inside the header",
            Error::Malformed => "the header is malformed",
        })
    }
}

impl std::error::Error for Error {}

#[inline]
pub(super) fn u8_at(b: &[u8], at: usize) -> u8 {
    b[at]
}
#[inline]
pub(super) fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
/// A 24-bit field (QPs, PSN, MSN).
#[inline]
pub(super) fn u24_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([0, b[at], b[at + 1], b[at + 2]])
}
#[inline]
pub(super) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes_at(b, at))
}
#[inline]
pub(super) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(bytes_at(b, at))
}
#[inline]
pub(super) fn bytes_at<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b[at..at + N].try_into().expect("a slice of N bytes")
}

#[inline]
pub(super) fn set_u8(b: &mut [u8], at: usize, value: u8) {
    b[at] = value;
}
#[inline]
pub(super) fn set_u16(b: &mut [u8], at: usize, value: u16) {
    set_bytes(b, at, value.to_be_bytes());
}
/// Writes the low 24 bits of `value`.
#[inline]
pub(super) fn set_u24(b: &mut [u8], at: usize, value: u32) {
    b[at..at + 3].copy_from_slice(&value.to_be_bytes()[1..]);
}
#[inline]
pub(super) fn set_u32(b: &mut [u8], at: usize, value: u32) {
    set_bytes(b, at, value.to_be_bytes());
}
#[inline]
pub(super) fn set_u64(b: &mut [u8], at: usize, value: u64) {
    set_bytes(b, at, value.to_be_bytes());
}
#[inline]
pub(super) fn set_bytes<const N: usize>(b: &mut [u8], at: usize, value: [u8; N]) {
    b[at..at + N].copy_from_slice(&value);
}

/// A view type over a header of fixed length: `new_checked`, the whole-byte
/// field getters, and their setters on mutable buffers.
macro_rules! header_view {
    (
        $(#[$doc:meta])*
        $view:ident, $len:expr, {
            $( $(#[$fdoc:meta])* $get:ident, $set:ident: $ty:ty = $read:ident, $write:ident @ $at:expr; )*
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $view<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $view<T> {
            /// Bytes of the header.
            pub const LEN: usize = $len;

            /// A view without a length check; the accessors panic past the end.
            pub const fn new_unchecked(buffer: T) -> Self {
                $view { buffer }
            }

            /// A view over a buffer that holds at least the header.
            pub fn new_checked(buffer: T) -> Result<Self, $crate::wire::field::Error> {
                if buffer.as_ref().len() < $len {
                    Err($crate::wire::field::Error::Truncated)
                } else {
                    Ok($view { buffer })
                }
            }

            pub fn into_inner(self) -> T {
                self.buffer
            }

            $(
                $(#[$fdoc])*
                #[inline]
                pub fn $get(&self) -> $ty {
                    $crate::wire::field::$read(self.buffer.as_ref(), $at)
                }
            )*
        }

        impl<T: AsRef<[u8]> + AsMut<[u8]>> $view<T> {
            $(
                #[inline]
                pub fn $set(&mut self, value: $ty) {
                    $crate::wire::field::$write(self.buffer.as_mut(), $at, value)
                }
            )*
        }
    };
}

/// A header whose `Repr` is its fields one for one: the view, and a `Repr`
/// that parses from it, emits into it and makes the header's bytes.
macro_rules! plain_header {
    (
        $(#[$doc:meta])*
        $view:ident / $repr:ident, $len:expr, {
            $( $(#[$fdoc:meta])* $get:ident, $set:ident: $ty:ty = $read:ident, $write:ident @ $at:expr; )*
        }
    ) => {
        $crate::wire::field::header_view!($(#[$doc])* $view, $len, { $( $(#[$fdoc])* $get, $set: $ty = $read, $write @ $at; )* });

        #[doc = concat!("The fields of a [`", stringify!($view), "`] as values.")]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct $repr {
            $( $(#[$fdoc])* pub $get: $ty, )*
        }

        impl $repr {
            pub const LEN: usize = $len;

            pub fn parse<T: AsRef<[u8]>>(view: &$view<T>) -> Self {
                $repr { $( $get: view.$get(), )* }
            }

            pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, view: &mut $view<T>) {
                $( view.$set(self.$get); )*
            }

            /// The header's bytes.
            pub fn to_bytes(&self) -> [u8; $len] {
                let mut bytes = [0u8; $len];
                self.emit(&mut $view::new_unchecked(&mut bytes[..]));
                bytes
            }
        }
    };
}

pub(super) use {header_view, plain_header};
