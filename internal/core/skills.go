package core

import (
	"context"
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/subagent"
	"github.com/hew-dev/hew/internal/tools"
)

// forkSkill runs a context: fork skill in a sub-agent limited to its
// allowed-tools (and model); only the sub-agent's answer comes back.
func (s *Session) forkSkill(ctx context.Context, env *tools.Env, sk skills.Skill, prompt string) (tools.Result, error) {
	return s.subagent.RunTask(ctx, env, subagent.Task{
		Description: "skill " + sk.Name, Prompt: prompt, Tools: sk.AllowedTools, Model: sk.Model,
	})
}

// sidechain opens a sub-agent's transcript file beside the session file.
func (s *Session) sidechain(info subagent.SidechainInfo) (agent.Recorder, string, error) {
	w, err := session.CreateSidechain(session.Dir(s.o.HewHome, s.o.Root), s.ID(), session.Meta{
		Cwd: s.o.Root, Model: info.Model, Provider: s.o.ProviderName, Version: s.o.Version,
		Title: "sub-agent " + info.Type + ": " + info.Description,
	})
	if err != nil {
		return nil, "", err
	}
	return w, w.ID(), nil
}

// findSkill returns the user-invocable skill called name.
func (s *Session) findSkill(name string) (skills.Skill, bool) {
	for _, sk := range s.o.Skills {
		if sk.UserInvocable && strings.EqualFold(sk.Name, name) {
			return sk, true
		}
	}
	return skills.Skill{}, false
}

// skillMessage turns "/NAME ARGS" naming a user-invocable skill into the
// message the model gets: an inline skill's expanded instructions, or a
// fork skill's answer once its sub-agent ran. ok is false for any other
// text, which is sent as typed.
func (s *Session) skillMessage(ctx context.Context, text string) (msg string, ok bool, err error) {
	name, args, isCmd := skills.ParseCommand(text)
	if !isCmd {
		return "", false, nil
	}
	sk, found := s.findSkill(name)
	if !found {
		return "", false, nil
	}
	if !sk.Fork() {
		s.skillModel(sk)
		s.grants.start(sk, s.o.Root, s.o.HomeDir)
		return sk.UserMessage(args), true, nil
	}
	s.emit(agent.Notice{Level: "info", Text: fmt.Sprintf("skill %s runs in a sub-agent (context: fork)", sk.Name)})
	res, err := s.forkSkill(ctx, s.o.Env, sk, sk.Expand(args))
	if err != nil {
		return "", true, fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	return sk.ForkMessage(args, res.Content), true, nil
}

// skillSource is how /skills shows where a skill comes from.
func skillSource(sk skills.Skill) string {
	out := sk.Source + ", " + sk.Context + ", " + sk.Path
	for _, sh := range sk.Shadows {
		out += "; shadows " + sh
	}
	return out
}

// skillModel switches to an inline skill's model for the turn it starts;
// restoreModel switches back when the turn ends. A model that cannot be
// used is reported and the turn keeps the current one.
func (s *Session) skillModel(sk skills.Skill) {
	if sk.Model == "" || sk.Model == s.Model() {
		return
	}
	prev := s.Model()
	if err := s.SetModel(sk.Model); err != nil {
		s.emit(agent.Notice{Level: "warn", Text: fmt.Sprintf("skill %s asks for model %s: %v; using %s", sk.Name, sk.Model, err, prev)})
		return
	}
	s.mu.Lock()
	s.restoreTo = prev
	s.mu.Unlock()
}

func (s *Session) restoreModel() {
	s.mu.Lock()
	prev := s.restoreTo
	s.restoreTo = ""
	s.mu.Unlock()
	if prev != "" {
		if err := s.SetModel(prev); err != nil {
			s.emit(agent.Notice{Level: "warn", Text: "switching back to model " + prev + ": " + err.Error()})
		}
	}
}
