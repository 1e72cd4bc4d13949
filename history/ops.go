package history

// Ops, in the order the operations reference documents them: the names of the service's
// operations in its messages, and the op values of the envelope (package envelope).
const (
	OpList     = "list"
	OpSearch   = "search"
	OpRelated  = "related"
	OpGet      = "get"
	OpRename   = "rename"
	OpAnnotate = "annotate"
	OpPin      = "pin"
	OpArchive  = "archive"
	OpRecap    = "recap"
	OpResume   = "resume"
	OpDelete   = "delete"
	OpUsage    = "usage"
)

// Ops lists every op.
var Ops = []string{OpList, OpSearch, OpRelated, OpGet, OpRename, OpAnnotate, OpPin, OpArchive, OpRecap, OpResume, OpDelete, OpUsage}

// Formats of the get op.
const (
	FormatJSON         = "json"
	FormatMarkdown     = "markdown"
	FormatConversation = "conversation"
)
