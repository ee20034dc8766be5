// Reads a bag's MCAP files with Foxglove's own MCAP library (@mcap/core, the
// reader Foxglove opens files with; zstd and lz4 chunks through its wasm
// decompressors), so bagtop's reader is not involved, and checks what a
// reader relies on in a file rosbag2 would write:
//  - seeking: the summary (schemas, channels, statistics, chunk indexes,
//    the "rosbag2" metadata index) is read through the footer, and the
//    messages through the chunk and message indexes, in log-time order;
//  - streaming: every record from the magic to the footer, with CRCs
//    checked (chunks', and the data section's and summary's when written);
//  - both ways give the same messages per channel, and the Statistics
//    record counts them;
//  - Header profile "ros2", channels with message encoding "cdr" and
//    rosbag2's metadata keys, a "rosbag2" Metadata record with the bag's
//    serialized metadata.
// loadMcapBag(path) takes a directory (its *.mcap files, in split order) or
// one .mcap file and returns what decode.mjs reads from a .db3:
//   defs   Map type -> {encoding, text} (the Schema records)
//   topics [{id, name, type}] (id: the topic's name)
//   rows   [{topic_id, data}]: each topic's first 3 messages by log time
// It throws Error on the first thing wrong, naming the file.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { McapIndexedReader, McapStreamReader } from "@mcap/core";
import * as zstd from "@foxglove/wasm-zstd";
import lz4 from "@foxglove/wasm-lz4";

const decompressHandlers = {
  zstd: (buf, size) => zstd.decompress(buf, Number(size)),
  lz4: (buf, size) => lz4(buf, Number(size)),
};

// rosbag2's <bag>_<N>.mcap, by N.
function mcapFiles(path) {
  if (!statSync(path).isDirectory()) return [path];
  const n = (f) => Number(/_(\d+)\.mcap$/.exec(f)?.[1] ?? -1);
  const files = readdirSync(path).filter((f) => f.endsWith(".mcap")).sort((a, b) => n(a) - n(b));
  if (files.length === 0) throw new Error(`${path}: no .mcap file`);
  return files.map((f) => join(path, f));
}

function expect(ok, file, what) {
  if (!ok) throw new Error(`${basename(file)}: ${what}`);
}

// Counts messages per channel id into a Map.
function countInto(counts, id) {
  counts.set(id, (counts.get(id) ?? 0) + 1);
}

function sameCounts(a, b) {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].every((k) => (a.get(k) ?? 0) === (b.get(k) ?? 0));
}

function show(counts) {
  return JSON.stringify([...counts].map(([k, v]) => [Number(k), Number(v)]));
}

// The seeking read: summary, then the messages through the indexes.
async function readIndexed(file, bytes, msgs) {
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
  };
  const r = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  expect(r.header.profile === "ros2", file, `header profile '${r.header.profile}'`);
  expect(r.statistics !== undefined, file, "no Statistics record in the summary");
  expect(r.metadataIndexes.some((m) => m.name === "rosbag2"), file,
    "no metadata index entry 'rosbag2'");
  let yaml = "";
  for await (const m of r.readMetadata({ name: "rosbag2" }))
    yaml = m.metadata.get("serialized_metadata") ?? "";
  expect(/^storage_identifier: mcap$/m.test(yaml), file,
    "the rosbag2 Metadata record's serialized_metadata has no 'storage_identifier: mcap'");
  for (const c of r.channelsById.values()) {
    expect(c.messageEncoding === "cdr", file, `${c.topic}: message encoding '${c.messageEncoding}'`);
    for (const key of ["offered_qos_profiles", "topic_type_hash"])
      expect(c.metadata.has(key), file, `${c.topic}: no channel metadata '${key}'`);
    expect(r.schemasById.has(c.schemaId), file, `${c.topic}: schema ${c.schemaId} not in the summary`);
  }
  const counts = new Map();
  for await (const m of r.readMessages()) {
    countInto(counts, m.channelId);
    msgs.push({ topic: r.channelsById.get(m.channelId).topic, logTime: m.logTime, data: m.data });
  }
  const stats = new Map([...r.statistics.channelMessageCounts].map(([k, v]) => [k, Number(v)]));
  expect(sameCounts(counts, stats), file,
    `messages read through the indexes ${show(counts)}, Statistics says ${show(stats)}`);
  return { reader: r, counts };
}

// The streaming read: every record in order, CRCs checked, to the footer.
function readStreamed(file, bytes) {
  const s = new McapStreamReader({ validateCrcs: true, decompressHandlers });
  s.append(bytes);
  const counts = new Map();
  let last;
  for (let rec; (rec = s.nextRecord()); ) {
    if (rec.type === "Message") countInto(counts, rec.channelId);
    last = rec.type;
  }
  expect(s.done() && last === "Footer", file,
    `streamed read ended at ${last ?? "nothing"}, not at the footer`);
  return counts;
}

export async function loadMcapBag(path) {
  await zstd.isLoaded;
  await lz4.isLoaded;
  const defs = new Map(), topics = new Map(), msgs = [];
  for (const file of mcapFiles(path)) {
    const bytes = new Uint8Array(readFileSync(file));
    const before = msgs.length;
    const { reader, counts } = await readIndexed(file, bytes, msgs);
    expect(Number(reader.statistics.messageCount) === msgs.length - before, file,
      `Statistics message_count ${reader.statistics.messageCount}, ` +
      `${msgs.length - before} read`);
    const streamed = readStreamed(file, bytes);
    expect(sameCounts(counts, streamed), file,
      `streamed ${show(streamed)} messages per channel, indexed ${show(counts)}`);
    for (const s of reader.schemasById.values())
      defs.set(s.name, { encoding: s.encoding, text: new TextDecoder().decode(s.data) });
    for (const c of reader.channelsById.values())
      topics.set(c.topic, { id: c.topic, name: c.topic,
        type: reader.schemasById.get(c.schemaId).name });
  }
  const rows = [];
  for (const t of topics.keys()) {
    const mine = msgs.filter((m) => m.topic === t).sort((a, b) =>
      a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0);
    for (const m of mine.slice(0, 3)) rows.push({ topic_id: t, data: m.data });
  }
  return { defs, topics: [...topics.values()], rows, files: mcapFiles(path).length,
    messages: msgs.length };
}
