// The component's look, themable from the page by CSS custom properties (`--svc-inbox-*`) and by
// `::part(...)`. Applied as a constructable stylesheet (adoptedStyleSheets), so no inline style is
// needed and pages with a strict Content-Security-Policy (no 'unsafe-inline') work.

const CSS = `
:host{--_accent:var(--svc-inbox-accent,#2563eb);--_bg:var(--svc-inbox-bg,#fff);--_fg:var(--svc-inbox-fg,#111827);--_muted:var(--svc-inbox-muted,#6b7280);--_border:var(--svc-inbox-border,#e5e7eb);--_unread:var(--svc-inbox-unread-bg,#eff6ff);position:relative;display:inline-block;font:var(--svc-inbox-font,inherit);color:var(--_fg)}
*{box-sizing:border-box}
[hidden]{display:none!important}
:focus-visible{outline:2px solid var(--_accent);outline-offset:2px}
.bell{position:relative;display:inline-flex;align-items:center;justify-content:center;width:40px;height:40px;padding:0;border:0;border-radius:50%;background:transparent;color:inherit;cursor:pointer}
.bell:hover{background:var(--_border)}
svg{width:24px;height:24px;fill:currentColor}
.badge{position:absolute;top:2px;right:0;min-width:18px;height:18px;padding:0 5px;border-radius:9px;background:var(--svc-inbox-badge-bg,#dc2626);color:var(--svc-inbox-badge-fg,#fff);font-size:11px;font-weight:600;line-height:18px;text-align:center}
.panel{position:absolute;z-index:var(--svc-inbox-z-index,1000);top:calc(100% + 6px);right:0;width:var(--svc-inbox-width,360px);max-width:calc(100vw - 16px);max-height:var(--svc-inbox-max-height,480px);overflow:auto;background:var(--_bg);border:1px solid var(--_border);border-radius:var(--svc-inbox-radius,8px);box-shadow:0 10px 30px rgba(0,0,0,.15)}
.header{position:sticky;top:0;z-index:1;display:flex;align-items:center;justify-content:space-between;gap:8px;padding:10px 12px;background:var(--_bg);border-bottom:1px solid var(--_border)}
h2{margin:0;font-size:15px}
.mark-all{padding:4px;border:0;background:none;color:var(--_accent);font:inherit;font-size:13px;cursor:pointer}
ul{margin:0;padding:0;list-style:none}
.item{display:flex;border-bottom:1px solid var(--_border)}
.item.unread{background:var(--_unread)}
.link{display:block;flex:1;min-width:0;padding:10px 12px;border:0;background:none;color:inherit;font:inherit;text-align:left;text-decoration:none;cursor:pointer}
.title{display:block;font-size:14px;font-weight:600}
.unread .title::before{content:"";display:inline-block;width:8px;height:8px;margin-right:6px;border-radius:50%;background:var(--_accent)}
.body{display:block;margin-top:2px;color:var(--_muted);font-size:13px;white-space:pre-line;overflow-wrap:anywhere}
time{display:block;margin-top:4px;color:var(--_muted);font-size:12px}
.archive{flex:none;align-self:flex-start;width:28px;height:28px;margin:6px;padding:0;border:0;border-radius:50%;background:none;color:var(--_muted);font-size:16px;cursor:pointer}
.archive:hover{background:var(--_border)}
.note{margin:0;padding:16px 12px;color:var(--_muted);font-size:13px;text-align:center}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.sentinel{height:1px}
`;

let sheet: CSSStyleSheet | null = null;

/** One sheet shared by every instance on the page. */
export function inboxStyleSheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  return sheet;
}
