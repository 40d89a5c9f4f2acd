package sloconfig

// Event reasons about the ConfigMap's keys, recorded by the config-cache
// controller (docs/behaviour.md#bad-input).
const (
	// ReasonInvalidConfig: a key's value was rejected; the note names the
	// key, the JSON path and why, and says which value stays in force.
	ReasonInvalidConfig = "InvalidConfig"
	// ReasonConfigWarning: a key's value was accepted, with an oddity worth fixing.
	ReasonConfigWarning = "ConfigWarning"
)

// KeyEvent is one Event to record on the ConfigMap about its keys.
type KeyEvent struct {
	Reason string
	// Action names the key: the Event recorder folds Events with the same
	// object, reason and action into one series that keeps only the first
	// note, so each key needs its own action to be heard.
	Action   string
	Messages []string
	// Suffix follows the messages, e.g. what stays in force.
	Suffix string
}

// Note joins the messages into one Event note within the API's length
// limit, saying how many were left out when they do not all fit.
func (e KeyEvent) Note() string { return EventNote(e.Messages, e.Suffix) }

// KeyEvents turns cfg's reports, and the retired rollout key's lines, into
// Events an operator can act on: one about data keys probably meant for
// this controller but not read (a misspelt key, a key under binaryData),
// then per key one listing every error and one listing every warning.
func KeyEvents(data map[string]string, binaryData map[string][]byte, cfg *Config, rollout KeyLines) []KeyEvent {
	var out []KeyEvent
	if msgs := DataKeyWarnings(data, binaryData); len(msgs) > 0 {
		out = append(out, KeyEvent{ReasonConfigWarning, "Check keys", msgs, ""})
	}
	for _, k := range ReportByKey(cfg, rollout) {
		action := "Load " + string(k.Key)
		if len(k.Errors) > 0 {
			out = append(out, KeyEvent{ReasonInvalidConfig, action, k.Errors, k.Consequence})
		}
		if len(k.Warnings) > 0 {
			out = append(out, KeyEvent{ReasonConfigWarning, action, k.Warnings, ""})
		}
	}
	return out
}
