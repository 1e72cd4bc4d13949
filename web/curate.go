package web

import (
	"net/http"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// Curation: each action is a small form the page's script posts (with the CSRF token the
// server checks before the request gets here); the answer is the chat's header, rendered
// again, which the script puts in place of the old one. What the caller may change is the
// door's and the history's to decide: a refusal comes back as its message.

// maxTags bounds the tags one form may set (the history validates each).
const maxTags = 64

func (h *Handler) curate(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		return annals.Errorf(annals.EINVALID, "the form could not be read: send it as application/x-www-form-urlencoded")
	}
	ctx, f := r.Context(), r.PostForm
	sel := annals.ChatSelector{ID: r.PathValue("id")}
	var chat *annals.Chat
	switch action := r.PathValue("action"); action {
	case "rename":
		chat, err = c.RenameChat(ctx, sel, strings.TrimSpace(f.Get("title")))
	case "describe":
		d := strings.TrimSpace(f.Get("description"))
		chat, err = c.AnnotateChat(ctx, sel, annals.Annotation{Description: &d})
	case "tags":
		tags, terr := splitTags(f.Get("tags"))
		if terr != nil {
			return terr
		}
		chat, err = c.AnnotateChat(ctx, sel, annals.Annotation{Tags: &tags})
	case "pin", "archive":
		on, berr := formBool(f.Get("on"))
		if berr != nil {
			return berr
		}
		if action == "pin" {
			chat, err = c.PinChat(ctx, sel, on)
		} else {
			chat, err = c.ArchiveChat(ctx, sel, on)
		}
	case "recap":
		var rec *annals.Recap
		if rec, err = c.RecapChat(ctx, sel); err == nil {
			chat = rec.Chat
		}
	case "delete":
		return h.delete(w, r, c, sel, f.Get("confirm"))
	default:
		return annals.Errorf(annals.ENOTFOUND, "there is no chat action %q (actions: rename, describe, tags, pin, archive, recap, delete)", action)
	}
	if err != nil {
		return err
	}
	h.fragment(w, "chat", "head", h.head(r, c, chat))
	return nil
}

// delete removes a chat once the form names it: the confirmation carries the chat's id, so a
// request that did not come through the confirmation deletes nothing.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request, c annals.HistoryService, sel annals.ChatSelector, confirm string) error {
	v, err := c.GetChat(r.Context(), annals.GetParams{Chat: sel, Limit: 1})
	if err != nil {
		return err
	}
	if confirm != v.Chat.ID {
		return annals.Errorf(annals.EINVALID, "deleting needs confirm=<the chat's id> (%q): nothing was deleted", v.Chat.ID)
	}
	if err := c.DeleteChat(r.Context(), annals.ChatSelector{ID: v.Chat.ID}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func formBool(s string) (bool, error) {
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, annals.Errorf(annals.EINVALID, "on=%q: want true or false", s)
}

// splitTags reads the tags field: tags separated by commas, blanks dropped.
func splitTags(s string) ([]string, error) {
	tags := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	if len(tags) > maxTags {
		return nil, annals.Errorf(annals.EINVALID, "%d tags given (at most %d)", len(tags), maxTags)
	}
	return tags, nil
}

// headData is what the chat's header shows: the chat, and how to resume it.
type headData struct {
	Chat *annals.Chat
	// Resume is the resume menu: the commands that continue the chat (none when no tool
	// command does; resume.go).
	Resume []resumeOption
	// CanWrite offers the curation controls.
	CanWrite bool
	// Estimated is the estimated part of the chat's cost (cost.go).
	Estimated float64
}

func (h *Handler) head(r *http.Request, c *history.Caller, chat *annals.Chat) headData {
	d := headData{Chat: chat, CanWrite: c.Writes()}
	if res, err := c.ResumeChat(r.Context(), annals.ChatSelector{ID: chat.ID}); err == nil {
		d.Resume = resumeOptions(res)
	}
	// A header without the estimate still shows what the runs recorded.
	if est, err := chatEstimates(r.Context(), c, []*annals.Chat{chat}); err == nil {
		d.Estimated = est[chat.ID]
	}
	return d
}

// related is the related-chats sidebar, which the chat page's script loads after the page.
func (h *Handler) related(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	page, err := c.FindRelated(r.Context(), annals.RelatedParams{ChatID: r.PathValue("id"), Limit: 8})
	msg := ""
	if err != nil {
		if code := annals.ErrorCode(err); code != annals.EUNAVAILABLE && code != annals.ENOTIMPLEMENTED {
			return err
		}
		msg, page = annals.ErrorMessage(err), &annals.RelatedPage{}
	}
	h.fragment(w, "chat", "related", struct {
		Results []annals.RelatedChat
		Message string
	}{page.Results, msg})
	return nil
}
