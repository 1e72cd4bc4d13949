package importer

import "github.com/annals-dev/annals"

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
