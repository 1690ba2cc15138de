package gguf

import _ "embed"

// TextEN is the English of the messages of the errors Open and OpenModel
// return for a file that is not a usable model, by stable key
// (data/text.en.json: {placeholders}, as reader.go and split.go word them),
// and TextZhCN their Simplified Chinese: the CLI reads an error's English
// back into key and values and renders it in the user's language.
//
//go:embed data/text.en.json
var TextEN []byte

// TextZhCN translates TextEN.
//
//go:embed data/text.zh-CN.json
var TextZhCN []byte
