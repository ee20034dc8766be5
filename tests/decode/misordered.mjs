// An MCAP file whose records break the specification's order, and what
// Foxglove's own MCAP library makes of it and of bagtop's copy:
//   node misordered.mjs write FILE
//     writes FILE, built here byte by byte from the specification (not by
//     bagtop, nor by test_mcap_doctor's C builder): Header, Schema 1,
//     Channel 1 (/a), a chunk holding a Message on channel 1 and one on
//     channel 2, then a chunk holding Channel 2 (/b) and a Message on 1,
//     Data End, Footer; then requires @mcap/core's McapStreamReader to stop
//     at the Message on channel 2 (what `bagtop check` reports: the test
//     decode_bags.sh compares them).
//   node misordered.mjs read BAG
//     requires BAG (bagtop convert's copy) to read through mcap_bag.mjs
//     (indexed and streamed, CRCs, rosbag2's keys) with /a: 2 messages and
//     /b: 1.
// Exits 0 when so, 1 (saying why) otherwise.
import { writeFileSync, readFileSync } from "node:fs";
import { McapStreamReader } from "@mcap/core";
import { loadMcapBag } from "./mcap_bag.mjs";

const le = (v, n) => {
  const b = Buffer.alloc(n);
  if (n === 8) b.writeBigUInt64LE(BigInt(v));
  else if (n === 4) b.writeUInt32LE(v);
  else b.writeUInt16LE(v);
  return b;
};
const str = (s) => Buffer.concat([le(Buffer.byteLength(s), 4), Buffer.from(s)]);
const record = (op, ...fields) => {
  const body = Buffer.concat(fields);
  return Buffer.concat([Buffer.from([op]), le(body.length, 8), body]);
};
const T = 1700000000000000000n;
const schema = record(0x03, le(1, 2), str("std_msgs/msg/Int32"), str("ros2msg"), str("int32 data\n"));
const channel = (id, topic) => record(0x04, le(id, 2), le(1, 2), str(topic), str("cdr"), le(0, 4));
// std_msgs/Int32 42, CDR little-endian
const message = (ch, t) =>
  record(0x05, le(ch, 2), le(0, 4), le(t, 8), le(t, 8), Buffer.from([0, 1, 0, 0, 42, 0, 0, 0]));
const chunk = (t0, t1, ...recs) => {
  const records = Buffer.concat(recs);
  return record(0x06, le(t0, 8), le(t1, 8), le(records.length, 8), le(0, 4), str(""),
    le(records.length, 8), records);
};
const magic = Buffer.from([0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a]);

function write(path) {
  const file = Buffer.concat([
    magic,
    record(0x01, str("ros2"), str("misordered.mjs")),
    schema,
    channel(1, "/a"),
    chunk(T, T + 1n, message(1, T), message(2, T + 1n)),
    chunk(T + 2n, T + 2n, channel(2, "/b"), message(1, T + 2n)),
    record(0x0f, le(0, 4)),
    record(0x02, le(0, 8), le(0, 8), le(0, 4)),
    magic,
  ]);
  writeFileSync(path, file);
  const reader = new McapStreamReader();
  reader.append(new Uint8Array(readFileSync(path)));
  try {
    while (reader.nextRecord());
  } catch (e) {
    if (/message on channel 2 without prior channel record/i.test(e.message)) {
      console.log(`${path}: Foxglove's streamed reader: ${e.message}`);
      return;
    }
    throw new Error(`${path}: Foxglove's streamed reader stopped for another reason: ${e.message}`);
  }
  throw new Error(`${path}: Foxglove's streamed reader took the file whole`);
}

async function read(path) {
  const bag = await loadMcapBag(path);
  const per = new Map();
  for (const t of bag.topics) per.set(t.name, bag.rows.filter((r) => r.topic_id === t.id).length);
  const got = [...per].sort().map(([k, v]) => `${k}: ${v}`).join(", ");
  if (got !== "/a: 2, /b: 1") throw new Error(`${path}: messages ${got}, want /a: 2, /b: 1`);
  console.log(`${path}: read by @mcap/core (${got})`);
}

try {
  const [mode, path] = process.argv.slice(2);
  if (mode === "write") write(path);
  else if (mode === "read") await read(path);
  else throw new Error("usage: node misordered.mjs write FILE | read BAG");
} catch (e) {
  console.error(`FAIL: ${e.message}`);
  process.exit(1);
}
