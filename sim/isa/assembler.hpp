// Assembler and module disassembler for TeslaSM native assembly (syntax: docs/assembly.md).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "module.hpp"

namespace tsm {

/// An assembly error with its position; what() reads "file:line:col: error: message".
class AsmError : public std::runtime_error {
 public:
  AsmError(const std::string& file, int line, int col, const std::string& message);
  int line;
  int col;
  std::string message;
};

/// Assemble a whole source file into a validated module.
Module assemble(std::string_view source, std::string_view filename);

/// Encode one instruction line (no labels or symbols; branch targets as +N/-N) at PC 0.
uint64_t assemble_instruction(std::string_view line);

/// A listing of the module that assembles back to the same binary.
std::string disassemble_module(const Module& module);

}  // namespace tsm
