package summarize

// Sentences exposes the sentence splitter to the external tests, which pin its edge cases.
var Sentences = sentences
