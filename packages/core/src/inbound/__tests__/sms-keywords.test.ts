import { parseSmsReply } from "../sms-keywords";

// docs/texting.md "STOP and START": the whole reply, trimmed, any case, equal to a keyword.
test.each([
  ["STOP", "stop", "stop"],
  ["stop", "stop", "stop"],
  ["  Stop \n", "stop", "stop"],
  ["STOPALL", "stop", "stopall"],
  ["Unsubscribe", "stop", "unsubscribe"],
  ["CANCEL", "stop", "cancel"],
  ["end", "stop", "end"],
  ["Quit", "stop", "quit"],
  ["REVOKE", "stop", "revoke"],
  ["opt out", "stop", "opt out"],
  ["Opt Out", "stop", "opt out"],
  ["OPTOUT", "stop", "optout"],
  ["START", "start", "start"],
  [" unstop", "start", "unstop"],
  ["Yes", "start", "yes"],
  ["HELP", "none", "help"],
  ["info", "none", "info"],
  ["opt  out", "none", null], // two spaces
  ["opt-out", "none", null],
  ["STOP.", "none", null],
  ["stop please", "none", null],
  ["please stop", "none", null],
  ["yes!", "none", null],
  ["s t o p", "none", null],
  ["", "none", null],
  ["Thanks, see you tomorrow", "none", null],
])("%j → %s (%j)", (body, action, keyword) => {
  expect(parseSmsReply(body)).toEqual({ action, keyword });
});
