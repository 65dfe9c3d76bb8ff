#!/usr/bin/env python3
"""Generates TeslaSM's configuration header, SystemVerilog packages and docs from isa/configs.toml.

Every value is checked first (per-parameter ranges from the TOML, cross-constraints below); all
problems are reported, each naming the file, configuration, parameter, value and what is allowed,
and the exit code is 1. Output is deterministic and a file is rewritten only when its text changes,
so an edit to one configuration rebuilds only what depends on it.

Usage: gen_config.py --toml isa/configs.toml [--toml more.toml ...] [--isa isa/isa.toml] --out-dir DIR
The warp size is an ISA constant: it is read from the ISA table (by default isa.toml beside this
script), never typed here. Later --toml files add parameters, configurations or examples to earlier ones (defining one twice
is an error), so a board may keep its own configuration in its own file.
"""

import argparse
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_ISA_TABLE = Path(__file__).with_name("isa.toml")
WARP_SIZE = 0  # set by main() from the ISA table's [constants] WARP_SIZE
CONFIG_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,7}$")
SOURCE_NAME = "isa/configs.toml"
GENERATOR_NAME = "isa/gen_config.py"

# Parameters the generator itself computes with (cross-constraints, derived values, occupancy).
# Any other parameter declared in the TOML flows through to every output untouched.
REQUIRED_PARAMETERS = (
    "sp_lanes", "sfu_units", "dp_units", "max_warps", "max_blocks", "max_threads_per_block",
    "registers", "max_regs_per_thread", "reg_alloc_unit", "warp_alloc_granularity",
    "shared_bytes", "shared_banks", "shared_alloc_unit", "stack_depth",
    "max_block_x", "max_block_y", "max_block_z", "max_grid_x", "max_grid_y", "max_grid_z",
    "num_sms", "icache_lines", "icache_line_words", "const_cache_bytes",
)

# Occupancy limits in tie-break order (the C++ enum tsm::OccupancyLimit has the same order).
LIMITS = ("threads", "warps", "blocks", "registers", "shared memory")


class ConfigError(Exception):
    """A problem in the input, already worded for the user."""


@dataclass
class Parameter:
    name: str
    doc: str
    min: int
    max: int
    power_of_two: bool = False
    multiple_of: int = 1

    def allowed(self) -> str:
        text = f"{self.min}..{self.max}"
        if self.power_of_two:
            text += ", power of two" if self.min > 0 else ", 0 or a power of two"
        if self.multiple_of > 1:
            text += f", multiple of {self.multiple_of}"
        return text

    def violation(self, value: int) -> str | None:
        if value < self.min or value > self.max:
            return f"is out of range {self.min}..{self.max}"
        if self.power_of_two and value != 0 and value & (value - 1):
            return f"is not a power of two (allowed: {self.allowed()})"
        if value % self.multiple_of:
            return f"is not a multiple of {self.multiple_of} (allowed: {self.allowed()})"
        return None


@dataclass
class Config:
    name: str
    source: str
    description: str
    notes: str
    values: dict[str, int]

    def __getitem__(self, key: str) -> int:
        return self.values[key]


@dataclass
class Example:
    config: str
    block: tuple[int, int, int]
    regs_per_thread: int
    shared_bytes: int
    why: str


@dataclass
class Model:
    parameters: list[Parameter]
    configs: list[Config]
    examples: list[Example] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Loading and checking
# ---------------------------------------------------------------------------------------------

SECTIONS = ("parameters", "configs")


def load(paths: list[str]) -> Model:
    merged: dict = {section: {} for section in SECTIONS}
    examples: list = []
    origin: dict = {}  # "configs.NAME" / "parameters.NAME" -> file that defines it
    errors: list[str] = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except OSError as e:
            raise ConfigError(f"{path}: cannot read: {e.strerror}") from e
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: not valid TOML: {e}") from e
        for key, value in data.items():
            if key == "occupancy_examples" and isinstance(value, list):
                examples.extend((path, item) for item in value)
            elif key in SECTIONS and isinstance(value, dict):
                for name, table in value.items():
                    where = f"{key}.{name}"
                    if where in origin:
                        errors.append(f"{path}: '{where}' is already defined in {origin[where]}")
                    else:
                        merged[key][name] = table
                        origin[where] = path
            else:
                errors.append(f"{path}: unexpected top-level '{key}' "
                              "(expected tables [parameters.NAME], [configs.NAME] and [[occupancy_examples]])")

    parameters = load_parameters(merged["parameters"], origin, errors)
    configs = load_configs(merged["configs"], parameters, origin, errors)
    if not errors:
        for config in configs:
            errors.extend(f"{config.source}: config '{config.name}': {problem}"
                          for problem in cross_check(config))
    examples = load_examples(examples, configs, errors)
    if errors:
        raise ConfigError("\n".join(errors))
    return Model(parameters, configs, examples)


def load_parameters(table: dict, origin: dict, errors: list) -> list[Parameter]:
    parameters = []
    for name, spec in table.items():
        where = f"{origin.get(f'parameters.{name}', '?')}: parameter '{name}'"
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            errors.append(f"{where}: name must be lower_snake_case")
            continue
        if not isinstance(spec, dict):
            errors.append(f"{where}: must be a table with doc, min and max")
            continue
        unknown = sorted(set(spec) - {"doc", "min", "max", "power_of_two", "multiple_of"})
        if unknown:
            errors.append(f"{where}: unknown field(s) {', '.join(unknown)}")
        doc = spec.get("doc")
        if not isinstance(doc, str) or not doc.strip() or "\n" in doc:
            errors.append(f"{where}: needs a one-line doc string")
            continue
        bounds = [spec.get(k) for k in ("min", "max")]
        if not all(type(b) is int and 0 <= b <= 0xFFFFFFFF for b in bounds) or bounds[0] > bounds[1]:
            errors.append(f"{where}: min and max must be integers with 0 <= min <= max < 2^32")
            continue
        power_of_two = spec.get("power_of_two", False)
        multiple_of = spec.get("multiple_of", 1)
        if type(power_of_two) is not bool or type(multiple_of) is not int or multiple_of < 1:
            errors.append(f"{where}: power_of_two must be true/false and multiple_of a positive integer")
            continue
        parameters.append(Parameter(name, doc.strip(), bounds[0], bounds[1], power_of_two, multiple_of))
    declared = {p.name for p in parameters}
    for name in REQUIRED_PARAMETERS:
        if name not in declared and name not in table:
            errors.append(f"[parameters]: '{name}' is not declared, but {GENERATOR_NAME} needs it")
    return parameters


def load_configs(table: dict, parameters: list[Parameter], origin: dict, errors: list) -> list[Config]:
    if not table:
        errors.append("no configurations: add at least one [configs.NAME] table")
    configs = []
    for name, spec in table.items():
        source = origin.get(f"configs.{name}", "?")
        where = f"{source}: config '{name}'"
        if not CONFIG_NAME_RE.match(name):
            errors.append(f"{where}: name must be 1-8 characters [a-z0-9_] starting with a letter")
            continue
        if not isinstance(spec, dict):
            errors.append(f"{where}: must be a table")
            continue
        description = spec.get("description")
        if not isinstance(description, str) or not description.strip() or "\n" in description:
            errors.append(f"{where}: needs a one-line description string")
            description = ""
        notes = spec.get("notes", "")
        if not isinstance(notes, str):
            errors.append(f"{where}: notes must be a string")
            notes = ""
        values = {}
        for p in parameters:
            if p.name not in spec:
                errors.append(f"{where}: missing parameter '{p.name}' ({p.doc} Allowed: {p.allowed()})")
                continue
            value = spec[p.name]
            if type(value) is not int:
                shown = str(value).lower() if isinstance(value, bool) else repr(value)
                errors.append(f"{where}: {p.name} = {shown} is not an integer (allowed: {p.allowed()})")
                continue
            problem = p.violation(value)
            if problem:
                errors.append(f"{where}: {p.name} = {value} {problem}")
                continue
            values[p.name] = value
        for key in sorted(set(spec) - {p.name for p in parameters} - {"description", "notes"}):
            errors.append(f"{where}: unknown parameter '{key}' (not declared under [parameters])")
        configs.append(Config(name, source, description.strip(), " ".join(notes.split()), values))
    identifiers: dict[str, str] = {}
    for config in configs:
        other = identifiers.setdefault(cpp_identifier(config.name), config.name)
        if other != config.name:
            errors.append(f"{config.source}: config '{config.name}': C++ name {cpp_identifier(config.name)} "
                          f"clashes with config '{other}'")
    return configs


def roundup(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def one_warp_block_registers(c) -> int:
    """Registers a one-warp block needs at max_regs_per_thread (the occupancy rule's allocation)."""
    return roundup(roundup(1, c["warp_alloc_granularity"]) * WARP_SIZE * c["max_regs_per_thread"],
                   c["reg_alloc_unit"])


# Cross-constraints: (rule as the docs state it, check returning a problem text or None).
CROSS_CONSTRAINTS = (
    ("max_warps x 32 >= max_threads_per_block (a full block must be able to reside)",
     lambda c: None if c["max_warps"] * WARP_SIZE >= c["max_threads_per_block"] else
     f"max_threads_per_block = {c['max_threads_per_block']} needs {c['max_threads_per_block'] // WARP_SIZE} "
     f"warps but max_warps = {c['max_warps']} (allowed: max_threads_per_block <= max_warps x 32)"),
    ("max_blocks <= max_warps (every resident block holds at least one warp)",
     lambda c: None if c["max_blocks"] <= c["max_warps"] else
     f"max_blocks = {c['max_blocks']} exceeds max_warps = {c['max_warps']} "
     "(allowed: max_blocks <= max_warps, since every block holds a warp)"),
    ("sfu_units <= sp_lanes and dp_units <= sp_lanes",
     lambda c: None if max(c["sfu_units"], c["dp_units"]) <= c["sp_lanes"] else
     f"sfu_units = {c['sfu_units']} / dp_units = {c['dp_units']} exceed sp_lanes = {c['sp_lanes']} "
     "(allowed: at most one SFU or DP unit per SP lane)"),
    ("registers is a multiple of reg_alloc_unit",
     lambda c: None if c["registers"] % c["reg_alloc_unit"] == 0 else
     f"registers = {c['registers']} is not a multiple of reg_alloc_unit = {c['reg_alloc_unit']}"),
    ("a one-warp block at max_regs_per_thread fits in registers",
     lambda c: None if one_warp_block_registers(c) <= c["registers"] else
     f"max_regs_per_thread = {c['max_regs_per_thread']} can never be used: a one-warp block would need "
     f"{one_warp_block_registers(c)} registers but registers = {c['registers']}"),
    ("shared_bytes is a multiple of shared_alloc_unit and of 4 x shared_banks",
     # Both divisors are powers of two, so the larger is their least common multiple.
     lambda c: None if c["shared_bytes"] % max(c["shared_alloc_unit"], 4 * c["shared_banks"]) == 0 else
     f"shared_bytes = {c['shared_bytes']} is not a multiple of shared_alloc_unit = {c['shared_alloc_unit']} "
     f"and of 4 x shared_banks = {4 * c['shared_banks']}"),
    ("max_block_x, max_block_y, max_block_z <= max_threads_per_block",
     lambda c: next((f"{axis} = {c[axis]} exceeds max_threads_per_block = {c['max_threads_per_block']}"
                     for axis in ("max_block_x", "max_block_y", "max_block_z")
                     if c[axis] > c["max_threads_per_block"]), None)),
)


def cross_check(config: Config) -> list[str]:
    return [problem for _, check in CROSS_CONSTRAINTS if (problem := check(config))]


def load_examples(items: list, configs: list[Config], errors: list) -> list[Example]:
    by_name = {c.name for c in configs}
    examples = []
    for index, (source, item) in enumerate(items, 1):
        where = f"{source}: occupancy example {index}"
        if not isinstance(item, dict) or set(item) != {"config", "block", "regs_per_thread",
                                                       "shared_bytes", "why"}:
            errors.append(f"{where}: needs exactly config, block, regs_per_thread, shared_bytes, why")
            continue
        block = item["block"]
        if (not isinstance(block, list) or not 1 <= len(block) <= 3
                or any(type(d) is not int or not 0 <= d < 2**32 for d in block)):
            errors.append(f"{where}: block must be a list of 1 to 3 unsigned integers")
            continue
        if item["config"] not in by_name:
            errors.append(f"{where}: unknown config '{item['config']}'")
            continue
        if any(type(item[k]) is not int or not 0 <= item[k] < 2**32
               for k in ("regs_per_thread", "shared_bytes")):
            errors.append(f"{where}: regs_per_thread and shared_bytes must be unsigned integers")
            continue
        if not isinstance(item["why"], str):
            errors.append(f"{where}: why must be a string")
            continue
        examples.append(Example(item["config"], tuple(block + [1] * (3 - len(block))),
                                item["regs_per_thread"], item["shared_bytes"], item["why"]))
    return examples


# ---------------------------------------------------------------------------------------------
# Derived values and occupancy (the C++ calculator in sim/config/occupancy.cpp is the same rule;
# the generated examples header lets the C++ tests hold the two to each other)
# ---------------------------------------------------------------------------------------------

def width(count: int) -> int:
    """Bits to index `count` items; at least 1 so that no SystemVerilog vector is [-1:0]."""
    return max(1, (count - 1).bit_length())


def derived_values(c: Config) -> list[tuple[str, int, str]]:
    """(SystemVerilog name, value, doc) of values computed from the parameters."""
    shared_words_per_bank = c["shared_bytes"] // 4 // c["shared_banks"]
    regs_per_lane = c["registers"] // c["sp_lanes"]
    max_block_dim = max(c["max_block_x"], c["max_block_y"], c["max_block_z"])
    max_grid_dim = max(c["max_grid_x"], c["max_grid_y"], c["max_grid_z"])
    return [
        ("WarpSize", WARP_SIZE, "Threads per warp (an ISA constant, the same in every configuration)."),
        ("MaxThreads", c["max_warps"] * WARP_SIZE, "Resident threads per SM: MaxWarps x WarpSize."),
        ("SpClocksPerWarp", WARP_SIZE // c["sp_lanes"],
         "Clocks a warp instruction occupies the SP lanes: WarpSize / SpLanes."),
        ("SfuClocksPerWarp", WARP_SIZE // c["sfu_units"],
         "Clocks a warp instruction occupies the SFUs: WarpSize / SfuUnits."),
        ("DpClocksPerWarp", WARP_SIZE // c["dp_units"] if c["dp_units"] else 0,
         "Clocks a warp instruction occupies the DP units: WarpSize / DpUnits, 0 without DP units."),
        ("LaneIdxWidth", width(c["sp_lanes"]), "Bits of an SP lane index."),
        ("WarpIdWidth", width(c["max_warps"]), "Bits of a resident-warp slot index."),
        ("BlockSlotWidth", width(c["max_blocks"]), "Bits of a resident-block slot index."),
        ("ThreadIdxWidth", width(c["max_threads_per_block"]), "Bits of a thread's linear index within its block."),
        ("BlockDimWidth", width(max_block_dim + 1), "Bits holding any block dimension up to its maximum."),
        ("GridDimWidth", width(max_grid_dim + 1), "Bits holding any grid dimension up to its maximum."),
        ("RegsPerLane", regs_per_lane, "Registers in each lane's slice of the register file: Registers / SpLanes."),
        ("RegLaneAddrWidth", width(regs_per_lane), "Bits of an address into one lane's register slice."),
        ("SharedWords", c["shared_bytes"] // 4, "32-bit words of shared memory: SharedBytes / 4."),
        ("SharedWordsPerBank", shared_words_per_bank, "32-bit words in each shared-memory bank."),
        ("SharedBankWidth", width(c["shared_banks"]), "Bits of a shared-memory bank index."),
        ("SharedBankAddrWidth", width(shared_words_per_bank), "Bits of a word address within one bank."),
        ("SharedAddrWidth", width(c["shared_bytes"]), "Bits of a shared-memory byte address."),
        ("StackPtrWidth", width(c["stack_depth"] + 1), "Bits of a stack pointer counting 0..StackDepth entries."),
        ("IcacheIndexWidth", width(c["icache_lines"]), "Bits of an instruction-cache line index."),
        ("IcacheOffsetWidth", width(c["icache_line_words"]), "Bits of an instruction's position within a line."),
        ("ConstCacheAddrWidth", width(c["const_cache_bytes"]), "Bits of a constant-cache byte address."),
        ("SmIdWidth", width(c["num_sms"]), "Bits of an SM index in the GPU top-level."),
    ]


def config_tag(name: str) -> int:
    """The name's ASCII bytes, character i in bits [8i+7:8i], so the tag's bytes in memory spell it."""
    return int.from_bytes(name.encode("ascii").ljust(8, b"\0"), "little")


@dataclass
class Occupancy:
    refused: str = ""  # parameter or rule that refuses the launch; empty when it launches
    reason: str = ""
    blocks: int = 0
    warps_per_block: int = 0
    regs_per_block: int = 0
    shared_per_block: int = 0
    allowed: dict = field(default_factory=dict)  # limit -> blocks it allows (absent: not used)
    binding: list = field(default_factory=list)


def occupancy(c: Config, block: tuple[int, int, int], regs: int, shared: int) -> Occupancy:
    threads = block[0] * block[1] * block[2]
    if 0 in block:
        return Occupancy("zero", "a block dimension is 0")
    for axis, dim in zip("xyz", block):
        if dim > c[f"max_block_{axis}"]:
            return Occupancy(f"max_block_{axis}", f"block {axis} = {dim} > max_block_{axis} {c[f'max_block_{axis}']}")
    if threads > c["max_threads_per_block"]:
        return Occupancy("max_threads_per_block",
                         f"{threads} threads > max_threads_per_block {c['max_threads_per_block']}")
    if regs > c["max_regs_per_thread"]:
        return Occupancy("max_regs_per_thread", f"{regs} registers > max_regs_per_thread {c['max_regs_per_thread']}")
    warps = -(-threads // WARP_SIZE)
    regs_per_block = roundup(roundup(warps, c["warp_alloc_granularity"]) * WARP_SIZE * regs, c["reg_alloc_unit"])
    shared_per_block = roundup(shared, c["shared_alloc_unit"])
    if regs_per_block > c["registers"]:
        return Occupancy("registers", f"{regs_per_block} registers per block > registers {c['registers']}")
    if shared_per_block > c["shared_bytes"]:
        return Occupancy("shared_bytes",
                         f"{shared_per_block} shared bytes per block > shared_bytes {c['shared_bytes']}")
    allowed = {
        "threads": c["max_warps"] * WARP_SIZE // threads,
        "warps": c["max_warps"] // warps,
        "blocks": c["max_blocks"],
    }
    if regs_per_block:
        allowed["registers"] = c["registers"] // regs_per_block
    if shared_per_block:
        allowed["shared memory"] = c["shared_bytes"] // shared_per_block
    blocks = min(allowed.values())
    binding = [limit for limit in LIMITS if allowed.get(limit) == blocks]
    return Occupancy("", "", blocks, warps, regs_per_block, shared_per_block, allowed, binding)


# ---------------------------------------------------------------------------------------------
# Emitters
# ---------------------------------------------------------------------------------------------

def cpp_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cpp_identifier(config_name: str) -> str:
    return "k" + "".join(part.capitalize() for part in config_name.split("_"))


def sv_name(parameter: str) -> str:
    return "".join(part.capitalize() for part in parameter.split("_"))


def header_comment(prefix: str, what: str) -> str:
    return f"{prefix} {what}\n{prefix} Generated by {GENERATOR_NAME} from {SOURCE_NAME}: do not edit; edit the TOML.\n"


def emit_cpp_header(model: Model) -> str:
    p_names = [p.name for p in model.parameters]
    out = [header_comment("//", "Named SM configurations (tsm::config)."),
           "#pragma once\n\n#include <array>\n#include <cstdint>\n#include <string_view>\n\n",
           "namespace tsm::config {\n\n",
           "/// Threads per warp: an ISA constant, the same in every configuration.\n",
           f"inline constexpr std::uint32_t kWarpSize = {WARP_SIZE};\n\n",
           "/// One named SM configuration; every numeric field is a parameter of the TOML.\n",
           "struct SmConfig {\n",
           "  /// Configuration name, e.g. \"g80\" (also the RTL package directory).\n",
           "  const char* name;\n",
           "  /// One-line description.\n",
           "  const char* description;\n",
           "  /// The name's ASCII bytes, character i in bits [8i+7:8i]; the RTL reports the same tag.\n",
           "  std::uint64_t config_tag;\n"]
    for p in model.parameters:
        out.append(f"  /// {p.doc} Allowed: {p.allowed()}.\n  std::uint32_t {p.name};\n")
    out.append("\n  /// Resident threads per SM: max_warps x kWarpSize.\n"
               "  constexpr std::uint32_t max_threads() const { return max_warps * kWarpSize; }\n"
               "};\n\n")
    for c in model.configs:
        out.append(f"/// {c.description}\ninline constexpr SmConfig {cpp_identifier(c.name)}{{\n"
                   f"    .name = {cpp_string(c.name)},\n"
                   f"    .description = {cpp_string(c.description)},\n"
                   f"    .config_tag = 0x{config_tag(c.name):016x}u,\n")
        out.extend(f"    .{name} = {c[name]}u,\n" for name in p_names)
        out.append("};\n\n")
    out.append("/// Every configuration, in the TOML's order.\n"
               f"inline constexpr std::array<SmConfig, {len(model.configs)}> kAllConfigs{{\n"
               + "".join(f"    {cpp_identifier(c.name)},\n" for c in model.configs) + "};\n\n")
    out.append("/// The configuration called `name`, or nullptr when there is none.\n"
               "inline constexpr const SmConfig* find_config(std::string_view name) {\n"
               "  for (const SmConfig& config : kAllConfigs) {\n"
               "    if (name == config.name) return &config;\n"
               "  }\n"
               "  return nullptr;\n"
               "}\n\n")
    out.append("/// A parameter's name, documentation, allowed values (as text) and field.\n"
               "struct ParameterInfo {\n"
               "  std::string_view name;\n"
               "  std::string_view doc;\n"
               "  std::string_view allowed;\n"
               "  std::uint32_t SmConfig::*field;\n"
               "};\n\n"
               "/// Every parameter, in the TOML's order, for tools that list them.\n"
               f"inline constexpr std::array<ParameterInfo, {len(p_names)}> kParameters{{{{\n")
    out.extend(f"    {{{cpp_string(p.name)}, {cpp_string(p.doc)}, {cpp_string(p.allowed())}, "
               f"&SmConfig::{p.name}}},\n" for p in model.parameters)
    out.append("}};\n\n}  // namespace tsm::config\n")
    return "".join(out)


def emit_examples_header(model: Model) -> str:
    configs = {c.name: c for c in model.configs}
    out = [header_comment("//", "Worked occupancy examples, as the generator computes them."),
           "// The tests check the C++ calculator (sim/config/occupancy.cpp) against every entry, so the\n"
           "// numbers in docs/configurations.md and the simulator's cannot disagree.\n"
           "#pragma once\n\n#include <array>\n#include <cstdint>\n#include <string_view>\n\n",
           "namespace tsm::config {\n\n",
           "/// One launch shape and the occupancy the generator computed for it.\n",
           "struct OccupancyExample {\n",
           "  std::string_view config;\n",
           "  std::uint32_t block_x, block_y, block_z;\n",
           "  std::uint32_t regs_per_thread;\n",
           "  std::uint32_t shared_bytes;\n",
           "  /// Parameter that refuses the launch (\"zero\" for a zero dimension); empty when it runs.\n",
           "  std::string_view refused_by;\n",
           "  std::uint32_t blocks_per_sm;\n",
           "  std::uint32_t regs_per_block;\n",
           "  std::uint32_t shared_per_block;\n",
           "  /// Bit i set when limit i (tsm::OccupancyLimit order) allows exactly blocks_per_sm.\n",
           "  std::uint32_t binding_mask;\n",
           "};\n\n",
           f"inline constexpr std::array<OccupancyExample, {len(model.examples)}> kOccupancyExamples{{{{\n"]
    for e in model.examples:
        o = occupancy(configs[e.config], e.block, e.regs_per_thread, e.shared_bytes)
        mask = sum(1 << LIMITS.index(limit) for limit in o.binding)
        out.append(f"    {{{cpp_string(e.config)}, {e.block[0]}, {e.block[1]}, {e.block[2]}, "
                   f"{e.regs_per_thread}, {e.shared_bytes}, {cpp_string(o.refused)}, {o.blocks}, "
                   f"{o.regs_per_block}, {o.shared_per_block}, 0x{mask:x}}},\n")
    out.append("}};\n\n}  // namespace tsm::config\n")
    return "".join(out)


def emit_sv_package(model: Model, c: Config) -> str:
    out = [header_comment("//", f"SM configuration '{c.name}' as a SystemVerilog package."),
           "// Every configuration's package is called tsm_cfg_pkg, so the RTL is configuration-agnostic\n"
           "// and the build picks a configuration by picking the directory. Use the values as\n"
           "// tsm_cfg_pkg::NAME (no wildcard import: Yosys 0.23 rejects it).\n\n",
           f"/// {c.description}\n",
           "package tsm_cfg_pkg;\n\n",
           f"  /// Configuration name '{c.name}' in ASCII, character i in bits [8i+7:8i].\n",
           f"  localparam logic [63:0] ConfigTag = 64'h{config_tag(c.name):016x};\n\n",
           "  // Parameters.\n\n"]
    for p in model.parameters:
        out.append(f"  /// {p.doc}\n  localparam int unsigned {sv_name(p.name)} = {c[p.name]};\n")
    out.append("\n  // Derived values.\n\n")
    for name, value, doc in derived_values(c):
        out.append(f"  /// {doc}\n  localparam int unsigned {name} = {value};\n")
    out.append("\nendpackage\n")
    return "".join(out)


def md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def format_block(block: tuple[int, int, int]) -> str:
    return "x".join(str(d) for d in block)


def emit_docs(model: Model) -> str:
    configs = {c.name: c for c in model.configs}
    names = [c.name for c in model.configs]
    out = [f"<!-- Generated by {GENERATOR_NAME} from {SOURCE_NAME}: do not edit; "
           "edit the TOML and run ./tsm docs. -->\n",
           "# SM configurations\n\n",
           "TeslaSM is built in named configurations. All of them come from one file, "
           f"`{SOURCE_NAME}`, from which the build generates the C++ header `tsm/config_gen.hpp` "
           "(`tsm::config::kAllConfigs`), one SystemVerilog package `tsm_cfg_pkg` per configuration "
           "(`build/gen/rtl/<name>/tsm_cfg_pkg.sv`) and this page. "
           "`./tsm configs [NAME]` lists them; `./tsm occupancy` applies the occupancy rule below.\n\n"]
    for c in model.configs:
        notes = f" {md_escape(c.notes)}" if c.notes else ""
        out.append(f"- **`{c.name}`**: {md_escape(c.description)}{notes}\n")
    out.append(f"\nWarp size is {WARP_SIZE} threads in every configuration: it is an ISA constant.\n\n")

    out.append("## Parameters\n\n")
    out.append("| Parameter | " + " | ".join(f"`{n}`" for n in names) + " | Allowed | Meaning |\n")
    out.append("|---|" + "---:|" * len(names) + "---|---|\n")
    for p in model.parameters:
        values = " | ".join(str(configs[n][p.name]) for n in names)
        out.append(f"| `{p.name}` | {values} | {p.allowed()} | {md_escape(p.doc)} |\n")

    out.append("\n### Cross-constraints\n\n"
               "Besides each parameter's own range, the generator refuses a configuration unless:\n\n")
    out.extend(f"- {rule}\n" for rule, _ in CROSS_CONSTRAINTS)

    out.append("\n### Derived values in the SystemVerilog package\n\n")
    out.append("| Name | " + " | ".join(f"`{n}`" for n in names) + " | Meaning |\n")
    out.append("|---|" + "---:|" * len(names) + "---|\n")
    derived = {n: derived_values(configs[n]) for n in names}
    for row, (name, _, doc) in enumerate(derived[names[0]]):
        values = " | ".join(str(derived[n][row][1]) for n in names)
        out.append(f"| `{name}` | {values} | {md_escape(doc)} |\n")
    out.append("\nParameters appear in the package in UpperCamelCase (`sp_lanes` is "
               "`tsm_cfg_pkg::SpLanes`), together with `ConfigTag`, the configuration's name in ASCII.\n")

    out.append(OCCUPANCY_THEORY)
    out.append("| Config | Block | Regs/thread | Shared bytes | Regs/block | Shared/block "
               "| Blocks/SM | Threads/SM | Binding limit(s) | Why |\n")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---|---|\n")
    for e in model.examples:
        c = configs[e.config]
        o = occupancy(c, e.block, e.regs_per_thread, e.shared_bytes)
        threads = e.block[0] * e.block[1] * e.block[2]
        if o.refused:
            result = f"refused | - | {o.reason}"
            per_block = "- | -"
        else:
            per_block = f"{o.regs_per_block} | {o.shared_per_block}"
            result = f"{o.blocks} | {o.blocks * threads} | {', '.join(o.binding)}"
        out.append(f"| `{e.config}` | {format_block(e.block)} | {e.regs_per_thread} | {e.shared_bytes} "
                   f"| {per_block} | {result} | {md_escape(e.why)} |\n")
    return "".join(out)


OCCUPANCY_THEORY = """
## Occupancy: resident blocks per SM

An SM holds as many blocks of a launch at once as every one of its resources allows, exactly as
NVIDIA's CUDA occupancy calculator computes it for compute capability 1.x (register allocation per
block). For a block of `T` threads whose kernel uses `R` registers per thread and `S` bytes of
shared memory (static plus dynamic):

```
warps_per_block  = ceil(T / 32)
regs_per_block   = roundup(roundup(warps_per_block, warp_alloc_granularity) * 32 * R, reg_alloc_unit)
shared_per_block = roundup(S, shared_alloc_unit)

blocks_per_sm = min( floor(max_warps * 32 / T)              -- threads
                   , floor(max_warps / warps_per_block)      -- warps
                   , max_blocks                              -- blocks
                   , floor(registers / regs_per_block)       -- registers (only if R > 0)
                   , floor(shared_bytes / shared_per_block)  -- shared memory (only if S > 0) )
```

where `roundup(x, u)` is the smallest multiple of `u` that is at least `x`.

- **Granularity.** A partial warp occupies a whole warp slot, so the warp limit is never looser
  than the thread limit: the two agree when `T` is a multiple of 32, and otherwise the warp limit
  alone binds. Registers are granted for a multiple of `warp_alloc_granularity` warps (pairs
  of warps on Tesla), then rounded up to `reg_alloc_unit` registers (256 on compute 1.0, 512 on
  1.3); shared memory is granted in `shared_alloc_unit` bytes.
- **Binding limit.** The limits that allow exactly `blocks_per_sm` bind. When several do, all of
  them are reported in the fixed order threads, warps, blocks, registers, shared memory, and the
  first is the one named as *the* limit.
- **Refused launches.** A launch is refused, with a message naming the value and the limit, when a
  block dimension is 0 or larger than `max_block_x/y/z`, the block has more than
  `max_threads_per_block` threads, `R` exceeds `max_regs_per_thread`, or one block alone needs more
  registers or shared memory than the SM has. A grid dimension that is 0 or larger than
  `max_grid_x/y/z` is refused as well.

Worked examples, computed by the generator from the rule above; the C++ tests check the simulator's
calculator against every row:

"""


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------

def write_if_changed(path: Path, text: str):
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toml", action="append", required=True, metavar="FILE",
                        help="configuration file (repeat to add configurations from more files)")
    parser.add_argument("--out-dir", required=True, type=Path, metavar="DIR",
                        help="where tsm/, rtl/<name>/ and docs/ are written")
    parser.add_argument("--isa", type=Path, default=DEFAULT_ISA_TABLE, metavar="FILE",
                        help="ISA table to read the warp size from (default: isa.toml beside this script)")
    args = parser.parse_args()
    global WARP_SIZE
    try:
        with open(args.isa, "rb") as f:
            WARP_SIZE = tomllib.load(f)["constants"]["WARP_SIZE"]["value"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as e:
        print(f"gen_config.py: error: cannot read WARP_SIZE from {args.isa}: {e}", file=sys.stderr)
        return 1
    try:
        model = load(args.toml)
    except ConfigError as e:
        for line in str(e).splitlines():
            print(f"gen_config.py: error: {line}", file=sys.stderr)
        return 1
    write_if_changed(args.out_dir / "tsm" / "config_gen.hpp", emit_cpp_header(model))
    write_if_changed(args.out_dir / "tsm" / "occupancy_examples_gen.hpp", emit_examples_header(model))
    for c in model.configs:
        write_if_changed(args.out_dir / "rtl" / c.name / "tsm_cfg_pkg.sv", emit_sv_package(model, c))
    write_if_changed(args.out_dir / "docs" / "configurations.md", emit_docs(model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
