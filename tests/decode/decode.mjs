// Decodes a bag's messages with Foxglove's ros2msg parser (@foxglove/rosmsg)
// and CDR reader (@foxglove/rosmsg2-serialization), using only the message
// definitions stored in the bag (a plain DDS type's OMG IDL with
// @foxglove/omgidl-parser and -serialization): what Foxglove or any other tool without a
// ROS installation does. A .db3 is read with the sqlite3 CLI, so bagtop's
// own reader is not involved.
//   node decode.mjs demo|tpub FILE.db3|MCAP_BAG_DIR|FILE.mcap
// demo: a bag of `bagtop demo`; tpub: /chatter (string) and /battery
// (battery) of tests/tools/tpub. Every ROS topic must have a definition
// that parses, and its first messages must decode to the values the
// publisher sent. Prints one line per topic; exit 1 on the first failure.
// An MCAP bag (a directory of .mcap files, or one) is read with Foxglove's
// MCAP library instead, which checks the files as it goes (mcap_bag.mjs).
import { execFileSync } from "node:child_process";
import { parse } from "@foxglove/rosmsg";
import { MessageReader } from "@foxglove/rosmsg2-serialization";
import { parseIDL } from "@foxglove/omgidl-parser";
import { MessageReader as IdlReader } from "@foxglove/omgidl-serialization";
import { loadMcapBag } from "./mcap_bag.mjs";

const [kind, db] = process.argv.slice(2);
if (!["demo", "tpub"].includes(kind) || !db) {
  console.error("usage: node decode.mjs demo|tpub FILE.db3|MCAP_BAG_DIR|FILE.mcap");
  process.exit(2);
}

function fail(msg) {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
}

function sql(query) {
  const out = execFileSync("sqlite3", ["-json", "-readonly", db, query], {
    maxBuffer: 1 << 30,
  }).toString();
  return out.trim() === "" ? [] : JSON.parse(out);
}

function near(got, want, tol, what) {
  if (typeof got !== "number" || Math.abs(got - want) > tol)
    fail(`${what}: ${got}, want ${want} ± ${tol}`);
}

function same(got, want, what) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  if (g !== w) fail(`${what}: ${g}, want ${w}`);
}

const checks = {
  demo: {
    "/chatter": (m) => {
      if (!/^Hello from bagtop demo: \d+$/.test(m.data)) fail(`/chatter data '${m.data}'`);
    },
    "/tf_static": (m) => {
      same(m.transforms.length, 2, "/tf_static transforms");
      const [laser, imu] = m.transforms;
      same([laser.header.frame_id, laser.child_frame_id, imu.child_frame_id],
        ["base_link", "laser", "imu_link"], "/tf_static frames");
      near(laser.transform.translation.x, 0.15, 1e-9, "laser x");
      near(laser.transform.translation.z, 0.35, 1e-9, "laser z");
      near(imu.transform.rotation.w, 1, 0, "imu rotation w");
      if (!(laser.header.stamp.sec > 1.6e9)) fail(`/tf_static stamp ${laser.header.stamp.sec}`);
    },
    "/map": (m) => {
      same([m.header.frame_id, m.info.width, m.info.height, m.data.length],
        ["map", 100, 100, 10000], "/map size");
      near(m.info.resolution, 0.05, 1e-6, "/map resolution");
      near(m.info.origin.position.x, -2.5, 1e-9, "/map origin x");
      near(m.info.origin.orientation.w, 1, 0, "/map origin w");
      const cells = new Set(Array.from(m.data));
      same([...cells].sort((a, b) => a - b), [-1, 0, 100], "/map cell values");
    },
    "/imu": (m) => {
      same(m.header.frame_id, "imu_link", "/imu frame");
      const q = m.orientation;
      near(Math.hypot(q.x, q.y, q.z, q.w), 1, 1e-9, "/imu |orientation|");
      same(m.orientation_covariance.length, 9, "/imu covariance length");
      near(m.orientation_covariance[0], 1e-4, 1e-12, "/imu covariance[0]");
      near(m.orientation_covariance[1], 0, 0, "/imu covariance[1]");
      near(m.linear_acceleration.z, 9.81, 0.02, "/imu gravity");
      near(m.angular_velocity.z, 0.1, 0.002, "/imu yaw rate");
    },
    "/points": (m) => {
      same([m.height, m.width, m.point_step, m.row_step, m.data.length, m.is_dense],
        [64, 256, 16, 4096, 262144, true], "/points layout");
      same(m.fields.map((f) => [f.name, f.offset, f.datatype, f.count]),
        [["x", 0, 7, 1], ["y", 4, 7, 1], ["z", 8, 7, 1], ["intensity", 12, 7, 1]],
        "/points fields");
      const dv = new DataView(m.data.buffer, m.data.byteOffset, m.data.byteLength);
      const intensity = dv.getFloat32(12, !m.is_bigendian);
      if (![30, 60, 100, 180].includes(intensity)) fail(`/points intensity ${intensity}`);
    },
    "/scan": (m) => {
      same([m.header.frame_id, m.ranges.length, m.intensities.length],
        ["laser", 720, 720], "/scan sizes");
      near(m.angle_min, -Math.PI, 1e-6, "/scan angle_min");
      near(m.angle_increment, (2 * Math.PI) / 720, 1e-6, "/scan angle_increment");
      near(m.range_max, 12, 0, "/scan range_max");
      for (const r of m.ranges) if (!(r > 0.1 && r < 3)) fail(`/scan range ${r}`);
      for (const i of m.intensities) if (i !== 100 && i !== 180) fail(`/scan intensity ${i}`);
    },
    "DemoRobotStatus": (m) => {
      if (![1, 2].includes(m.robot_id)) fail(`DemoRobotStatus robot_id ${m.robot_id}`);
      if (!["idle", "navigating", "docking", "charging"].includes(m.mode))
        fail(`DemoRobotStatus mode '${m.mode}'`);
      if (!(m.battery > 0 && m.battery <= 1)) fail(`DemoRobotStatus battery ${m.battery}`);
      if (typeof m.seq !== "number") fail(`DemoRobotStatus seq ${m.seq}`);
    },
  },
  tpub: {
    "/chatter": (m) => {
      if (!/^hello \d+$/.test(m.data)) fail(`/chatter data '${m.data}'`);
    },
    "/battery": (m) => {
      const i = m.header.stamp.sec;
      same([m.header.frame_id, m.header.stamp.nanosec, m.voltage, m.status, m.label],
        ["battery_link", 500, 7.25, i % 2, `pack-${i}`], "/battery fields");
      same(m.cells.length, 2, "/battery cells");
      same(m.cells.map((c) => [c.voltage, Array.from(c.temperatures), c.wear.cycles,
        c.wear.replaced]),
        [[3.5, [20, -21, 22], i * 10, false], [3.75, [21, -22, 23], i * 10 + 1, true]],
        "/battery cells");
    },
  },
}[kind];

// What the bag holds, from SQLite: the same shape as loadMcapBag's.
function loadDb3() {
  return {
    defs: new Map(sql("SELECT topic_type, encoding, encoded_message_definition AS text " +
      "FROM message_definitions").map((d) => [d.topic_type, d])),
    topics: sql("SELECT id, name, type FROM topics ORDER BY id"),
    rows: sql("SELECT topic_id, hex(data) AS hex FROM (SELECT topic_id, data, " +
      "row_number() OVER (PARTITION BY topic_id ORDER BY timestamp, id) AS k FROM messages) " +
      "WHERE k <= 3").map((r) => ({ topic_id: r.topic_id, data: Buffer.from(r.hex, "hex") })),
  };
}

let bag;
if (db.endsWith(".db3")) {
  bag = loadDb3();
} else {
  try {
    bag = await loadMcapBag(db);
  } catch (e) {
    fail(`${db}: Foxglove's MCAP reader: ${e.message}`);
  }
  console.log(`ok ${db}: ${bag.files} MCAP file(s), ${bag.messages} messages, read indexed ` +
    "and streamed by @mcap/core");
}
const { defs, topics, rows } = bag;

const seen = new Set();
// Decodes topic t's rows with `read` and checks each message; fails when
// one does not decode (saying `how`). Returns how many were decoded.
function decodeRows(t, read, how) {
  const mine = rows.filter((r) => r.topic_id === t.id);
  if (mine.length === 0) fail(`${t.name}: no message`);
  for (const r of mine) {
    let m;
    try {
      m = read(Uint8Array.from(r.data));
    } catch (e) {
      fail(`${t.name}: does not decode${how}: ${e.message}`);
    }
    const check = checks[t.name];
    if (!check) fail(`${t.name}: unexpected topic`);
    check(m);
  }
  seen.add(t.name);
  return mine.length;
}

for (const t of topics) {
  const d = defs.get(t.type);
  if (!d) fail(`${t.name}: no message_definitions row for ${t.type}`);
  if (!t.type.includes("/") && d.encoding !== "omgidl") { // rosbag2's "unknown" row
    same([d.encoding, d.text], ["unknown", ""], `${t.name} (${t.type}) row`);
    console.log(`ok ${t.name} [${t.type}]: plain DDS, no definition (as rosbag2)`);
    continue;
  }
  if (d.encoding === "omgidl") { // a plain DDS type with XTypes type information
    let idl;
    try {
      idl = new IdlReader(t.type, parseIDL(d.text));
    } catch (e) {
      fail(`${t.name}: the IDL in the bag does not parse: ${e.message}`);
    }
    const k = decodeRows(t, (b) => idl.readMessage(b), " with its IDL");
    console.log(`ok ${t.name} [${t.type}]: ${k} decoded with its OMG IDL`);
    continue;
  }
  if (d.encoding !== "ros2msg") fail(`${t.name}: encoding '${d.encoding}'`);
  let reader;
  try {
    reader = new MessageReader(parse(d.text, { ros2: true }));
  } catch (e) {
    fail(`${t.name}: the definition in the bag does not parse: ${e.message}`);
  }
  const k = decodeRows(t, (b) => reader.readMessage(b), "");
  const n = d.text.split("\n" + "=".repeat(80) + "\n").length;
  console.log(`ok ${t.name} [${t.type}]: ${k} decoded, definition of ${n} types`);
}
for (const name of Object.keys(checks))
  if (!seen.has(name)) fail(`${name}: not in the bag`);
