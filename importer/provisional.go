package importer

import "github.com/annals-dev/annals"

// ProvisionalMarker is implemented by the Output an import hands a FileParser. A database that
// is still being written (a running agent runtime) can hold an entry in a form that will change:
// a tool call whose result has not been recorded yet, a reply still streaming. Its entries are
// idempotent by id, so a later read could never change the stored form; marking the first such
// entry of a chat makes the next import remove it, and every entry after it, before reading the
// source again, so the finished form replaces it (as a LineParser's provisional entries are).
type ProvisionalMarker interface {
	// MarkProvisional marks entryID of chatID, already emitted, as provisional. The first
	// entry marked in a chat counts.
	MarkProvisional(chatID, entryID string)
}

// provisionalMarks are the entries a FileParser marked, the first of each chat.
type provisionalMarks struct {
	first map[string]string
	order []string
}

func (o *output) MarkProvisional(chatID, entryID string) {
	m := &o.marks
	if _, ok := m.first[chatID]; ok || entryID == "" {
		return
	}
	if m.first == nil {
		m.first = map[string]string{}
	}
	m.first[chatID] = entryID
	m.order = append(m.order, chatID)
}

// markedProvisional lists the marked entries, in the order their chats were marked.
func (o *output) markedProvisional() []annals.ProvisionalEntry {
	var out []annals.ProvisionalEntry
	for _, chatID := range o.marks.order {
		out = append(out, annals.ProvisionalEntry{ChatID: chatID, EntryID: o.marks.first[chatID]})
	}
	return out
}
