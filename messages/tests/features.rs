//! Per-area cargo features: what `ApiKey`, the bodies, the frames and the pass-through do with
//! an API whose types are not compiled in.
//!
//! The first part runs with any features (the README's `--all-features` included): it drives
//! `apis!`'s handling of a known but not compiled API with a list of its own. The second part
//! runs with the `producer` area alone (`.ci/run`:
//! `cargo test -p kafkawire-messages --no-default-features --features producer --test features`),
//! against this crate's own dispatch. Frames are laid out by hand from Kafka's
//! MetadataRequest.json and DescribeGroupsRequest.json; the area of each API follows the
//! Java client package that sends it (`clients/producer` sends Metadata, only `clients/admin`
//! sends DescribeGroups).

use kafka_wire::frame::DecodeOptions;
use kafka_wire::{Bytes, DecodeErrorKind, VersionRange};

/// A list with one API compiled in (ApiVersions) and one only known (Heartbeat, 12): what the
/// shipped list hands to `apis!` when Heartbeat's features are off.
mod partial {
    kafka_wire_messages::apis! {
        @shipped
        [
            /// ApiVersions (18).
            ApiVersions = 18;
            /// Heartbeat (12).
            Heartbeat = 12;
        ]
        [ ApiVersions => kafka_wire_messages::ApiVersionsRequest, kafka_wire_messages::ApiVersionsResponse; ]
        [
            Heartbeat => kafka_wire_messages::__private::ApiFacts::known(
                kafka_wire_messages::__private::VersionRange::new(0, 4),
                kafka_wire_messages::__private::VersionRange::new(0, 4),
                kafka_wire_messages::__private::VersionRange::at_least(4),
                kafka_wire_messages::__private::VersionRange::at_least(4),
                None,
                "`consumer`",
            );
        ]
    }
}

/// Heartbeat v0: header v1 (key 12, version 0, correlation id 7, null client id), group "g",
/// generation 1, member "m".
const HEARTBEAT_V0: &[u8] =
    b"\x00\x00\x00\x14\x00\x0c\x00\x00\x00\x00\x00\x07\xff\xff\x00\x01g\x00\x00\x00\x01\x00\x01m";

#[test]
fn a_known_api_that_is_not_compiled_in() {
    use partial::{ApiKey, RequestBody, RequestFrame, ResponseBody, ResponseFrame};

    let hb = ApiKey::Heartbeat;
    assert!(!hb.is_compiled());
    assert!(ApiKey::ApiVersions.is_compiled());
    assert_eq!(ApiKey::from_i16(12), Some(hb));
    assert_eq!(hb.name(), "Heartbeat");
    assert_eq!(hb.request_versions(), VersionRange::new(0, 4));
    assert_eq!(hb.request_header_version(3), 1);
    assert_eq!(hb.request_header_version(4), 2);
    assert_eq!(hb.response_header_version(4), 1);
    assert!(hb.try_request_meta().is_none());
    assert!(RequestBody::try_default_for(hb).is_none());
    assert!(ResponseBody::try_default_for(ApiKey::ApiVersions).is_some());

    let e = RequestFrame::decode(&Bytes::from_static(HEARTBEAT_V0), &DecodeOptions::DEFAULT)
        .unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::ApiNotCompiled {
            name: "Heartbeat",
            features: "`consumer`"
        }
    );
    assert_eq!(e.offset(), 4);
    assert_eq!(e.path().to_string(), "header.request_api_key");
    assert!(
        e.to_string()
            .contains("enable the cargo feature `consumer`"),
        "{e}"
    );

    // A response: header v0, correlation id 7, then error code 0.
    let resp = Bytes::from_static(b"\x00\x00\x00\x06\x00\x00\x00\x07\x00\x00");
    let e = ResponseFrame::decode(&resp, hb, 0, &DecodeOptions::DEFAULT).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::ApiNotCompiled {
            name: "Heartbeat",
            ..
        }
    ));

    // Negotiation offers only what is compiled in.
    let broker = kafka_wire_messages::ApiVersionsResponse {
        api_keys: vec![
            kafka_wire_messages::ApiVersion {
                api_key: 12,
                min_version: 0,
                max_version: 4,
                ..Default::default()
            },
            kafka_wire_messages::ApiVersion {
                api_key: 18,
                min_version: 0,
                max_version: 3,
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    let n = ApiKey::negotiate(&broker, false);
    assert_eq!(n.iter().collect::<Vec<_>>(), vec![(18, 3)]);
}

/// With every area, every key is compiled in; the features of an API follow the Java
/// package that sends it.
#[cfg(feature = "all")]
#[test]
fn every_api_is_compiled_in_with_all() {
    use kafka_wire_messages::ApiKey;
    assert!(ApiKey::ALL.iter().all(|k| k.is_compiled()));
    assert_eq!(ApiKey::ApiVersions.features(), &[] as &[&str]);
    assert!(ApiKey::Produce.features().contains(&"producer"));
    assert!(!ApiKey::Produce.features().contains(&"consumer"));
    assert!(ApiKey::DescribeGroups.features().contains(&"admin"));
    assert!(ApiKey::Vote.features().contains(&"raft"));
    assert!(ApiKey::ShareFetch.features().contains(&"share"));
    assert!(!ApiKey::ShareFetch.features().contains(&"consumer"));
    // Every API is in some area, or compiled in always.
    for k in ApiKey::ALL {
        assert!(!k.features().is_empty() || *k == ApiKey::ApiVersions, "{k}");
    }
}

/// The `producer` area alone.
#[cfg(all(feature = "producer", not(feature = "admin")))]
mod producer_only {
    use kafka_wire::frame::DecodeOptions;
    use kafka_wire::{Bytes, DecodeErrorKind, VersionRange};
    use kafka_wire_messages::{AnyRequest, ApiKey, RequestBody, RequestFrame};

    /// Metadata v0: header v1 (key 3, version 0, correlation id 1, null client id), an empty
    /// topic list.
    const METADATA_V0: &[u8] =
        b"\x00\x00\x00\x0e\x00\x03\x00\x00\x00\x00\x00\x01\xff\xff\x00\x00\x00\x00";

    /// DescribeGroups v0: header v1 (key 15, version 0, correlation id 1, null client id),
    /// one group "g".
    const DESCRIBE_GROUPS_V0: &[u8] =
        b"\x00\x00\x00\x11\x00\x0f\x00\x00\x00\x00\x00\x01\xff\xff\x00\x00\x00\x01\x00\x01g";

    /// A user's list over the shipped APIs follows the same features.
    mod mine {
        kafka_wire_messages::apis! { use shipped; }
    }

    #[test]
    fn a_users_shipped_list_follows_the_features() {
        assert_eq!(mine::ApiKey::ALL.len(), ApiKey::ALL.len());
        assert!(mine::ApiKey::Metadata.is_compiled());
        assert!(!mine::ApiKey::DescribeGroups.is_compiled());
        let e = mine::RequestFrame::decode(
            &Bytes::from_static(DESCRIBE_GROUPS_V0),
            &DecodeOptions::DEFAULT,
        )
        .unwrap_err();
        assert!(matches!(e.kind(), DecodeErrorKind::ApiNotCompiled { .. }));
    }

    #[test]
    fn producer_apis_decode() {
        let f = RequestFrame::decode(&Bytes::from_static(METADATA_V0), &DecodeOptions::DEFAULT)
            .unwrap()
            .frame;
        assert!(matches!(f.body, RequestBody::Metadata(_)));
        assert_eq!(f.to_vec().unwrap(), METADATA_V0);
        assert!(ApiKey::Metadata.is_compiled());
    }

    #[test]
    fn admin_apis_are_known_but_not_decoded() {
        let k = ApiKey::DescribeGroups;
        assert!(!k.is_compiled());
        assert_eq!(k.features(), &["admin"]);
        // Versions and header versions from DescribeGroupsRequest.json: 0-6, flexible 5+.
        assert_eq!(k.request_versions(), VersionRange::new(0, 6));
        assert_eq!(k.request_header_version(4), 1);
        assert_eq!(k.request_header_version(5), 2);
        assert!(k.try_request_meta().is_none());

        let frame = Bytes::from_static(DESCRIBE_GROUPS_V0);
        let e = RequestFrame::decode(&frame, &DecodeOptions::DEFAULT).unwrap_err();
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::ApiNotCompiled {
                name: "DescribeGroups",
                features: "`admin`"
            }
        );
        assert_eq!(e.offset(), 4);
        // A proxy carries it as bytes.
        match AnyRequest::decode(&frame, &DecodeOptions::DEFAULT)
            .unwrap()
            .frame
        {
            AnyRequest::Opaque(o) => {
                assert_eq!((o.api_key, o.api_version, o.correlation_id), (15, 0, 1));
                assert_eq!(o.name(), Some("DescribeGroups"));
                assert_eq!(o.frame, frame);
            }
            AnyRequest::Decoded(f) => panic!("DescribeGroups is not compiled in: {f:?}"),
        }
    }
}
