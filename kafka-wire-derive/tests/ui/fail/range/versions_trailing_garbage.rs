use kafka_wire::{Field, KafkaMessage};

#[derive(KafkaMessage)]
#[kafka(versions = "4+x", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
}

fn main() {
    // Uses as a message and as a field: the fallback impls keep these quiet.
    let p = Produce::default();
    let _ = p.encode_to_vec(0);
    let _ = Produce::META.name;
    let _ = <Option<Produce> as Field>::KAFKA_TYPE;
}
