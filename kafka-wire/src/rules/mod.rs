//! Kafka's wire rules, one module per rule, shared by the code `#[derive(KafkaMessage)]`
//! generates (through `__private`) and by the metadata-driven codec (`dynamic`, behind the
//! `json` feature), so the two cannot drift apart. `tests/differential.rs` checks that they
//! agree on bytes and on errors.
//!
//! - [`version`]: struct versions, absent fields, nested flexible versions.
//! - [`tagged`]: the tagged-field section.
//! - [`nullable`]: the nullable-struct marker.
//! - `skip`: a value read by its declared type and dropped, with a full reading's errors.
//!
//! The other rules live with the types they govern: length prefixes, compact or classic, and
//! null through a length in `field/prefix.rs`; frame sizes in `frame.rs`; header versions in
//! `message.rs`; defaults are typed in the metadata (`DefaultValue`).
//!
//! Layering: `nullable` depends only on `field::context` (`Cx`), and `field::traits` calls it
//! for the nullable-struct default of `NullableField`; `version`, `tagged` and `skip` sit
//! above `field/` and nothing in `field/` calls them.

pub mod nullable;
pub(crate) mod skip;
pub mod tagged;
pub mod version;
