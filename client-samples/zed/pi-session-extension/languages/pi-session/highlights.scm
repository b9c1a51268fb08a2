; JSON highlighting for session lines (node names of tree-sitter-json).
(pair
  key: (string) @property)

(string) @string

(number) @number

[
  (true)
  (false)
] @boolean

(null) @constant

(escape_sequence) @string.escape
