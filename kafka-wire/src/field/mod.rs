//! The [`Field`] trait and the built-in types' implementations of it: how one Rust type is
//! put on and taken off the wire.
//!
//! The derive calls these for every field; users implement them for their own newtypes
//! (a `TopicName` wrapper, an enum stored as `int16`) by delegating to a built-in type.
//!
//! One module per kind, each depending only on the ones above it in this list (and on the
//! crate's lower layers: the reader, errors, limits, `rules::nullable`); nothing here
//! depends on this module itself, which only gathers what the rest of the crate uses:
//!
//! - `context`: [`Cx`], the context a value is written or read in.
//! - `traits`: [`Field`], its hidden supertrait [`FieldHooks`], [`NullableField`].
//! - `prefix`: length prefixes, compact or classic, null through a length.
//! - `fixed`: the fixed-width types.
//! - `strings`, `bytes`: strings, `bytes` and `records` values.
//! - `arrays`: `Vec<T>`, its element loops and the claims that bound a decode's memory.
//! - `option`: `Option<T>` of a nullable type.

pub(crate) mod arrays;
mod bytes;
pub(crate) mod context;
mod fixed;
mod option;
pub(crate) mod prefix;
pub(crate) mod strings;
pub(crate) mod traits;

#[cfg(test)]
mod tests;

pub use context::Cx;
pub use traits::{Field, FieldHooks, NullableField, Sealed, VecBuf};

#[cfg(feature = "json")]
pub(crate) use arrays::reserve_limit;
#[cfg(feature = "json")]
pub(crate) use context::field_cx;
#[cfg(feature = "json")]
pub(crate) use prefix::{put_array_prefix, read_array_prefix};
#[cfg(feature = "json")]
pub(crate) use strings::check_utf8;
