package explaincmd

// UnknownLog is the log no failure matches that the model tests ask about
// (model_test.go), for the command-line tests of package explaincmd_test.
const UnknownLog = unknownLog
