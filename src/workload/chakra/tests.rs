//! Tests on the astra-sim sample traces in `data/chakra/` (provenance in its
//! README) and on small traces built here with the same wire structs.

use super::wire::{self, AttributeProto, BoolList, GlobalMetadata, Value};
use super::*;
use prost::Message;

fn data(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/chakra")
        .join(p)
}

const RING: &str = "custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce";

fn attr(name: &str, value: Value) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        value: Some(value),
    }
}

fn node(id: u64, node_type: i32, attrs: Vec<AttributeProto>, data_deps: Vec<u64>) -> wire::Node {
    wire::Node {
        id,
        name: format!("n{id}"),
        node_type,
        data_deps,
        attr: attrs,
        ..Default::default()
    }
}

fn send(id: u64, dst: i32, deps: Vec<u64>) -> wire::Node {
    let attrs = vec![
        attr("comm_dst", Value::Int32(dst)),
        attr("comm_size", Value::Int64(4096)),
        attr("comm_tag", Value::Int32(0)),
    ];
    node(id, wire::node_type::COMM_SEND, attrs, deps)
}

fn comp(id: u64, deps: Vec<u64>) -> wire::Node {
    wire::Node {
        duration_micros: 3,
        ..node(id, wire::node_type::COMP, vec![], deps)
    }
}

/// A file: metadata version "t", then `nodes`, each length-delimited.
fn file(nodes: &[wire::Node]) -> Vec<u8> {
    let meta = GlobalMetadata {
        version: "t".into(),
        attr: vec![],
    };
    let mut out = meta.encode_length_delimited_to_vec();
    for n in nodes {
        n.encode_length_delimited(&mut out).unwrap();
    }
    out
}

fn decode(rank: u32, nodes: &[wire::Node]) -> Result<EtRank, InputError> {
    decode_rank(Path::new("t.0.et"), rank, &file(nodes))
}

fn error(rank: u32, nodes: &[wire::Node]) -> String {
    decode(rank, nodes).unwrap_err().to_string()
}

#[test]
fn each_microbenchmark_all_reduce_rank_holds_one_1_mib_all_reduce() {
    let t = read_trace(&data("all_reduce/4npus_1MB/all_reduce")).unwrap();
    assert_eq!(t.version, "0.0.4");
    assert_eq!(t.ranks.len(), 4);
    for (r, rank) in t.ranks.iter().enumerate() {
        assert_eq!(rank.rank, r as u32);
        let [n] = &rank.nodes[..] else {
            panic!("rank {r}: {} nodes", rank.nodes.len())
        };
        // The generator numbers nodes across files: rank r's only node has id r.
        assert_eq!(n.id, r as u64);
        assert_eq!(n.name, "all_reduce_4npus_1MB");
        assert_eq!(
            n.kind,
            EtKind::Collective {
                op: EtCollective::AllReduce,
                size: 1 << 20,
                group: None,
                involved_dim: None,
                duration_ns: 0,
            }
        );
        assert!(n.data_deps.is_empty() && n.ctrl_deps.is_empty());
    }
}

#[test]
fn each_microbenchmark_all_to_all_rank_holds_one_1_mib_all_to_all() {
    let t = read_trace(&data("all_to_all/8npus_1MB/all_to_all")).unwrap();
    assert_eq!(t.ranks.len(), 8);
    for rank in &t.ranks {
        assert_eq!(rank.nodes.len(), 1);
        let EtKind::Collective { op, size, .. } = rank.nodes[0].kind else {
            panic!("{:?}", rank.nodes[0].kind)
        };
        assert_eq!((op, size), (EtCollective::AllToAll, 1 << 20));
    }
}

#[test]
fn a_single_rank_file_is_read_with_the_rank_its_name_gives() {
    let r = read_rank(&data("all_to_all/8npus_1MB/all_to_all.5.et")).unwrap();
    assert_eq!(r.rank, 5);
    assert_eq!(r.nodes[0].id, 5);
    let e = read_rank(&data("README.md")).unwrap_err().to_string();
    assert!(e.contains("<prefix>.<rank>.et"), "{e}");
}

/// The custom ring all-reduce (MSCCLang ring, 8 ranks, 1 MiB in 8 chunks of
/// 128 KiB): 7 reduce-scatter steps (recv, then a 7 us reduction) and 7
/// all-gather steps (recv), each answered by a send, plus the first send.
#[test]
fn the_custom_ring_all_reduce_is_a_chain_of_sends_right_and_receives_from_the_left() {
    let t = read_trace(&data(RING)).unwrap();
    let n = t.ranks.len() as u32;
    assert_eq!(n, 8);
    // GlobalMetadata.version is empty; the converter writes a `schema` attribute.
    assert_eq!(t.version, "1.0.2-chakra.0.0.4");
    for rank in &t.ranks {
        let r = rank.rank;
        let (mut sends, mut recvs, mut comps) = (0, 0, 0);
        for (i, node) in rank.nodes.iter().enumerate() {
            // Ids run 0..35 in file order; each node depends on the one before.
            assert_eq!(node.id, i as u64);
            let want: Vec<u64> = (i as u64).checked_sub(1).into_iter().collect();
            assert_eq!(node.data_deps, want, "rank {r} node {i}");
            assert!(node.ctrl_deps.is_empty());
            match node.kind {
                EtKind::Send { dst, size, tag } => {
                    assert_eq!((dst, size, tag), ((r + 1) % n, 131072, 0));
                    sends += 1;
                }
                EtKind::Recv { src, size, tag } => {
                    assert_eq!((src, size, tag), ((r + n - 1) % n, 131072, 0));
                    recvs += 1;
                }
                EtKind::Compute {
                    duration_ns,
                    num_ops,
                    tensor_size,
                } => {
                    assert_eq!((duration_ns, num_ops, tensor_size), (7000, None, None));
                    comps += 1;
                }
                ref k => panic!("rank {r} node {i}: {k:?}"),
            }
        }
        assert_eq!((sends, recvs, comps), (14, 14, 7), "rank {r}");
        assert_eq!(rank.nodes.len(), 35);
    }
}

#[test]
fn every_ring_send_meets_the_matching_receive_in_order_and_carries_2_n_minus_1_over_n_of_a_mib() {
    let t = read_trace(&data(RING)).unwrap();
    let n = t.ranks.len() as u32;
    // (size, tag) of each p2p op from `a` to `b`, in the order the file lists it.
    let sent = |a: u32, b: u32| -> Vec<(u64, i64)> {
        let nodes = &t.ranks[a as usize].nodes;
        let sends = nodes.iter().filter_map(|x| match x.kind {
            EtKind::Send { dst, size, tag } if dst == b => Some((size, tag)),
            _ => None,
        });
        sends.collect()
    };
    let received = |b: u32, a: u32| -> Vec<(u64, i64)> {
        let nodes = &t.ranks[b as usize].nodes;
        let recvs = nodes.iter().filter_map(|x| match x.kind {
            EtKind::Recv { src, size, tag } if src == a => Some((size, tag)),
            _ => None,
        });
        recvs.collect()
    };
    for r in 0..n {
        let right = (r + 1) % n;
        assert_eq!(sent(r, right), received(right, r), "{r} -> {right}");
        let bytes: u64 = sent(r, right).iter().map(|s| s.0).sum();
        // A ring all-reduce sends 2(n-1) chunks of 1 MiB / n: 14 x 128 KiB.
        assert_eq!(bytes, 2 * (n as u64 - 1) * (1 << 20) / n as u64);
        assert_eq!(bytes, 1_835_008);
    }
}

#[test]
fn a_gzip_compressed_file_reads_as_the_plain_one() {
    let path = data(&format!("{RING}.3.et"));
    let plain = std::fs::read(&path).unwrap();
    let gz = gzipped(&plain);
    assert_eq!(gz[..2], [0x1f, 0x8b]);
    assert_eq!(
        decode_rank(&path, 3, &gz).unwrap(),
        decode_rank(&path, 3, &plain).unwrap()
    );
    let e = decode_rank(&path, 3, &gz[..gz.len() / 2]).unwrap_err();
    assert!(e.message.contains("gzip"), "{e}");
}

#[test]
fn a_file_cut_anywhere_reads_only_when_cut_between_messages() {
    let path = data(&format!("{RING}.1.et"));
    let bytes = std::fs::read(&path).unwrap();
    let ends: BTreeSet<usize> = wire::frames(&bytes)
        .map(|f| f.unwrap())
        .map(|(_, m)| m.as_ptr() as usize - bytes.as_ptr() as usize + m.len())
        .collect();
    assert_eq!(ends.len(), 36);
    for len in 0..bytes.len() {
        let got = decode_rank(&path, 1, &bytes[..len]);
        // Nodes depend only on earlier ones, so any whole-message prefix is valid.
        assert_eq!(got.is_ok(), ends.contains(&len), "cut at {len}: {got:?}");
        if let Ok(r) = got {
            assert_eq!(r.nodes.len(), ends.range(..=len).count() - 1);
        }
    }
    let e = decode_rank(&path, 1, &bytes[..bytes.len() - 1]).unwrap_err();
    assert!(e.to_string().contains("truncated message"), "{e}");
    assert!(
        e.to_string()
            .starts_with(&format!("{}: byte ", path.display())),
        "{e}"
    );
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
        let _ = decode_rank(Path::new("x.0.et"), 0, &bytes);
    }

    #[test]
    fn a_sample_with_bytes_overwritten_never_panics(
        edits in proptest::collection::vec((proptest::num::usize::ANY, proptest::num::u8::ANY), 1..6),
        gzip in proptest::bool::ANY,
    ) {
        let path = data(&format!("{RING}.2.et"));
        let mut bytes = std::fs::read(&path).unwrap();
        if gzip {
            bytes = gzipped(&bytes);
        }
        let n = bytes.len();
        for (at, b) in edits {
            bytes[at % n] = b;
        }
        let _ = decode_rank(&path, 2, &bytes);
    }
}

fn gzipped(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

#[test]
fn a_send_without_a_destination_names_the_node_and_the_attribute() {
    let mut s = send(4, 1, vec![]);
    s.attr.retain(|a| a.name != "comm_dst");
    assert_eq!(
        error(0, &[s]),
        "t.0.et: node 4: COMM_SEND_NODE needs attribute comm_dst, which is missing"
    );
    let mut c = node(2, wire::node_type::COMM_COLL, vec![], vec![]);
    c.attr.push(attr("comm_type", Value::Int64(0)));
    assert!(
        error(0, &[c])
            .ends_with("node 2: COMM_COLL_NODE needs attribute comm_size, which is missing")
    );
}

#[test]
fn a_dependency_on_an_absent_node_is_refused() {
    let e = error(0, &[comp(1, vec![]), send(2, 1, vec![1, 9])]);
    assert_eq!(
        e,
        "t.0.et: node 2: data_deps names node 9, which is not in this file"
    );
    let mut c = comp(3, vec![]);
    c.ctrl_deps = vec![7];
    assert!(error(0, &[c]).ends_with("ctrl_deps names node 7, which is not in this file"));
}

#[test]
fn a_node_id_used_twice_is_refused() {
    let e = error(0, &[comp(1, vec![]), comp(1, vec![])]);
    assert_eq!(e, "t.0.et: node 1: node id 1 is used twice");
}

#[test]
fn a_dependency_cycle_is_refused_and_named() {
    let e = error(0, &[comp(1, vec![]), comp(2, vec![1, 3]), comp(3, vec![2])]);
    assert_eq!(
        e,
        "t.0.et: node 2: dependency cycle: 2 -> 3 -> 2 (each depends on the next)"
    );
    // Through a control dependency, and a node waiting on itself.
    let mut c = comp(5, vec![]);
    c.ctrl_deps = vec![5];
    assert!(
        error(0, &[c]).ends_with("node 5: dependency cycle: 5 -> 5 (each depends on the next)")
    );
}

#[test]
fn a_send_claiming_another_source_is_refused() {
    let mut s = send(0, 1, vec![]);
    s.attr.push(attr("comm_src", Value::Int32(3)));
    assert_eq!(
        error(2, &[s.clone()]),
        "t.0.et: node 0: COMM_SEND_NODE with comm_src 3 is in the file of rank 2: it must be issued by rank 3"
    );
    // comm_src equal to the own rank is fine.
    assert!(decode(3, &[s]).is_ok());
}

#[test]
fn negative_or_oversized_sizes_and_ranks_are_refused() {
    let mut s = send(0, 1, vec![]);
    s.attr[1] = attr("comm_size", Value::Int64(-5));
    assert!(error(0, &[s]).ends_with("node 0: comm_size -5 is negative"));
    let s = send(0, -1, vec![]);
    assert!(error(0, &[s]).ends_with("node 0: comm_dst -1 is negative"));
    let mut s = send(0, 1, vec![]);
    s.attr[0] = attr("comm_dst", Value::Int64(1 << 40));
    assert!(error(0, &[s]).contains("comm_dst 1099511627776 is out of range"));
}

#[test]
fn unknown_comm_types_and_node_types_are_refused() {
    let c = node(
        0,
        wire::node_type::COMM_COLL,
        vec![
            attr("comm_type", Value::Int64(10)),
            attr("comm_size", Value::Int64(8)),
        ],
        vec![],
    );
    assert!(
        error(0, &[c])
            .ends_with("unknown comm_type 10 (valid: 0-9, et_def.proto CollectiveCommType)")
    );
    let n = node(0, 8, vec![], vec![]);
    assert!(error(0, &[n]).ends_with("unknown node type 8 (valid: 0-7, et_def.proto NodeType)"));
}

#[test]
fn every_comm_type_maps_to_its_collective() {
    for (v, op) in EtCollective::ALL.iter().enumerate() {
        assert_eq!(EtCollective::from_comm_type(v as i128), Some(*op));
    }
    assert_eq!(EtCollective::from_comm_type(9), Some(EtCollective::Barrier));
    assert_eq!(EtCollective::from_comm_type(-1), None);
}

#[test]
fn integer_attributes_accept_any_integer_kind_but_not_strings_or_floats() {
    let mut s = send(0, 1, vec![]);
    s.attr[0] = attr("comm_dst", Value::Uint64(1));
    s.attr[1] = attr("comm_size", Value::Sint32(77));
    s.attr[2] = attr("comm_tag", Value::Fixed32(9));
    let r = decode(0, &[s]).unwrap();
    assert_eq!(
        r.nodes[0].kind,
        EtKind::Send {
            dst: 1,
            size: 77,
            tag: 9
        }
    );
    let mut s = send(0, 1, vec![]);
    s.attr[1] = attr("comm_size", Value::String("4096".into()));
    assert!(
        error(0, &[s])
            .ends_with("attribute comm_size is a string_val; an integer kind is expected")
    );
    let mut s = send(0, 1, vec![]);
    s.attr[1] = attr("comm_size", Value::Double(4096.0));
    assert!(
        error(0, &[s])
            .ends_with("attribute comm_size is a double_val; an integer kind is expected")
    );
}

#[test]
fn a_collective_keeps_its_group_dimensions_and_duration() {
    let c = wire::Node {
        duration_micros: 12,
        ..node(
            0,
            wire::node_type::COMM_COLL,
            vec![
                attr("comm_type", Value::Int64(5)),
                attr("comm_size", Value::Uint64(64)),
                attr("pg_name", Value::String("3".into())),
                attr(
                    "involved_dim",
                    Value::BoolList(BoolList {
                        values: vec![true, false],
                    }),
                ),
                attr("is_cpu_op", Value::Bool(false)),
            ],
            vec![],
        )
    };
    let r = decode(0, &[c]).unwrap();
    assert_eq!(
        r.nodes[0].kind,
        EtKind::Collective {
            op: EtCollective::Broadcast,
            size: 64,
            group: Some("3".into()),
            involved_dim: Some(vec![true, false]),
            duration_ns: 12_000,
        }
    );
}

#[test]
fn a_comm_node_on_the_cpu_or_an_attribute_given_twice_is_refused() {
    let mut s = send(0, 1, vec![]);
    s.attr.push(attr("is_cpu_op", Value::Bool(true)));
    assert!(
        error(0, &[s])
            .ends_with("COMM_SEND_NODE has is_cpu_op true; a communication node runs on the NPU")
    );
    let mut s = send(0, 1, vec![]);
    s.attr.push(attr("comm_size", Value::Int64(1)));
    assert!(error(0, &[s]).ends_with("node 0: attribute comm_size is given more than once"));
}

#[test]
fn metadata_and_memory_nodes_are_kept_so_dependencies_through_them_resolve() {
    let nodes = [
        node(0, wire::node_type::METADATA, vec![], vec![]),
        node(1, wire::node_type::MEM_LOAD, vec![], vec![0]),
        comp(2, vec![1]),
    ];
    let r = decode(0, &nodes).unwrap();
    assert_eq!(r.nodes[0].kind, EtKind::Other { node_type: 1 });
    assert_eq!(r.nodes[1].kind, EtKind::Other { node_type: 2 });
    assert_eq!(r.nodes[2].data_deps, vec![1]);
}

/// Appends one length-delimited field `tag` holding `body` to `out`.
fn push_field(out: &mut Vec<u8>, tag: u32, body: &[u8]) {
    prost::encoding::encode_key(tag, prost::encoding::WireType::LengthDelimited, out);
    prost::encoding::encode_varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

#[test]
fn fields_and_attribute_kinds_not_read_are_skipped() {
    // A COMP node with inputs/outputs (IOInfo, fields 8 and 9), a doc_string, an
    // attribute holding a string_list (field 30) and one holding bytes (31).
    let mut body = comp(0, vec![]).encode_to_vec();
    let mut io = Vec::new();
    push_field(&mut io, 1, b"[[1, 2]]");
    push_field(&mut body, 8, &io);
    push_field(&mut body, 9, &io);
    for (name, tag) in [("tags", 30), ("blob", 31)] {
        let mut a = Vec::new();
        push_field(&mut a, 1, name.as_bytes());
        push_field(&mut a, 2, b"doc");
        let mut list = Vec::new();
        push_field(&mut list, 1, b"x");
        push_field(&mut a, tag, &list);
        push_field(&mut body, 10, &a);
    }
    let mut bytes = file(&[]);
    prost::encoding::encode_varint(body.len() as u64, &mut bytes);
    bytes.extend_from_slice(&body);
    let r = decode_rank(Path::new("t.0.et"), 0, &bytes).unwrap();
    assert_eq!(r.nodes.len(), 1);
    assert!(matches!(
        r.nodes[0].kind,
        EtKind::Compute {
            duration_ns: 3000,
            ..
        }
    ));
    // The same unknown kind on an attribute that is read is an error.
    let mut s = send(1, 1, vec![]).encode_to_vec();
    let mut a = Vec::new();
    push_field(&mut a, 1, b"comm_tag");
    push_field(&mut a, 30, &[]);
    push_field(&mut s, 10, &a);
    let mut s = wire::Node::decode(&s[..]).unwrap();
    s.attr.remove(2);
    assert!(
        error(0, &[s]).ends_with("attribute comm_tag holds no value of a kind this reader knows")
    );
}

#[test]
fn empty_and_undecodable_files_are_refused() {
    let p = Path::new("t.0.et");
    assert_eq!(
        decode_rank(p, 0, &[]).unwrap_err().to_string(),
        "t.0.et: empty: no GlobalMetadata message"
    );
    // A Node message whose field 1 has wire type 7 (no such type).
    let e = decode_rank(p, 0, &[0, 2, 0x0f, 0]).unwrap_err().to_string();
    assert!(e.starts_with("t.0.et: byte 1: Node does not decode"), "{e}");
    // Empty messages: an empty GlobalMetadata, then INVALID_NODEs all with id 0.
    let e = decode_rank(p, 0, &[0; 1000]).unwrap_err().to_string();
    assert_eq!(e, "t.0.et: node 0: node id 0 is used twice");
    let e = decode_rank(p, 0, &[0x80]).unwrap_err().to_string();
    assert_eq!(e, "t.0.et: byte 0: message length is not a valid varint");
}

/// A fresh directory under the system temp dir, removed first if left over.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocesim-chakra-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_prefix_without_files_or_with_a_gap_in_its_ranks_is_refused() {
    let d = temp_dir("gap");
    let w = d.join("w").display().to_string();
    let e = read_trace(&d.join("w")).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("{w}: no trace files: expected {w}.0.et, {w}.1.et, ...")
    );
    for r in [0, 1, 3] {
        std::fs::write(d.join(format!("w.{r}.et")), file(&[comp(0, vec![])])).unwrap();
    }
    // Not rank files of prefix w: another prefix, a leading zero, another suffix.
    for f in ["w2.2.et", "w.02.et", "w.2.et.json", "w.x.et"] {
        std::fs::write(d.join(f), b"").unwrap();
    }
    let e = read_trace(&d.join("w")).unwrap_err().to_string();
    assert!(e.contains("w.2.et is missing but "), "{e}");
    assert!(
        e.ends_with("w.3.et exists: ranks must run from 0 without a gap"),
        "{e}"
    );
    std::fs::write(d.join("w.2.et"), file(&[send(0, 3, vec![])])).unwrap();
    assert_eq!(read_trace(&d.join("w")).unwrap().ranks.len(), 4);
    std::fs::write(d.join("w.2.et"), file(&[send(0, 4, vec![])])).unwrap();
    let e = read_trace(&d.join("w")).unwrap_err().to_string();
    assert!(
        e.ends_with("node 0: comm_dst 4 is not a rank of this trace (it has 4 files, ranks 0-3)"),
        "{e}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}
