//! `apis! { use shipped; }` expands through a chain of nested macros (one per run of shipped
//! APIs with the same cargo features, because a `cfg` in a macro's output would be checked
//! against the calling crate's features). Every level counts against rustc's
//! `recursion_limit` (128 by default), so the chain must leave room for macros of the
//! caller's own around the call: this compiles it inside 64 levels of a user's macro and
//! stops compiling if the chain grows past what the `apis!` documentation promises.
//! (Measured when written: 73 levels fit, 75 do not.)

/// Peels one `x` per level, then emits the body: one expansion level per `x`.
macro_rules! nest {
    (() $($body:tt)*) => { $($body)* };
    ((x $($n:tt)*) $($body:tt)*) => { nest! { ($($n)*) $($body)* } };
}

nest! {
    (x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x)
    mod all_apis {
        kafka_wire_messages::apis! { use shipped; }
    }
}

#[test]
fn use_shipped_fits_inside_64_levels_of_the_callers_macros() {
    assert_eq!(
        all_apis::ApiKey::ALL.len(),
        kafka_wire_messages::ApiKey::ALL.len()
    );
    assert_eq!(
        all_apis::ApiKey::from_i16(3),
        Some(all_apis::ApiKey::Metadata)
    );
}
