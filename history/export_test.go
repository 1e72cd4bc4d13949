package history

// SummarizeTitled exposes the titled summary of a chat (the digest's) to the external tests.
var SummarizeTitled = (*Service).summarizeTitled

// CopyIDs exposes copyIDs (the ids a remote's heads name of a chat) to the external tests.
var CopyIDs = (*Service).copyIDs
