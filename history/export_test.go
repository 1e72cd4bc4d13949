package history

// SummarizeTitled exposes the titled summary of a chat (the digest's) to the external tests.
var SummarizeTitled = (*Service).summarizeTitled
