package web_test

import (
	"context"
	"net/url"

	"github.com/chromedp/chromedp"
)

func urlPathEscape(s string) string { return url.PathEscape(s) }

func chromedpClick(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(sel))
}

func chromedpEval(js string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](js)(ctx, t)
		return err
	})
}

// chromedpNavigate navigates without waiting for the page's script (tab.open waits).
func chromedpNavigate(u string) chromedp.Action[chromedp.Void] { return chromedp.Navigate(u) }
