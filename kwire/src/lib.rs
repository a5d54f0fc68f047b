//! The library half of the `kwire` command-line tool: what its commands are built on and
//! what tests drive in-process.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod proxy;
pub mod records;
