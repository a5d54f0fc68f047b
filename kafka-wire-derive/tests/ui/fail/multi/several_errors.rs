use kafka_wire::{Field, KafkaMessage};

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "3+")]
struct Produce {
    #[kafka(versions = "0+", nullable = "0+")]
    acks: i32,
    #[kafka(versions = "3+", tag = 1, tagged = "3+")]
    timeout_ms: i32,
    #[kafka(versions = "0+", default = "0xffff")]
    throttle: i16,
    #[kafka(versions = "0+")]
    transactional_id: Option<kafka_wire::Str>,
    unknown_tagged_fields: kafka_wire::UnknownTaggedFields,
}

fn main() {
    // Uses as a message and as a field: the fallback impls keep these quiet.
    let p = Produce::default();
    let _ = p.encode_to_vec(0);
    let _ = Produce::META.name;
    let _ = <Option<Produce> as Field>::KAFKA_TYPE;
}
