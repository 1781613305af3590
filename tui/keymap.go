package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap holds every key binding of the TUI; components return the ones
// they use as their key help.
type keyMap struct {
	Next, Mode, Faster, Slower key.Binding
	NextPane, PrevPane         key.Binding
	Left, Right, Up, Down      key.Binding
	PrevTab, NextTab           key.Binding
	Lang, Restart, Picker      key.Binding
	Help, Quit, Enter, Back    key.Binding
	// Narration opens and closes the current step's whole narration.
	Narration key.Binding
	// Answer shows the question asked at the gate again (question.go);
	// Choose is 1..9, the choices; Skip is Next while a question is
	// asked (its help only: Next does it).
	Answer, Choose, Skip key.Binding
	// Kubelet opens the node overlay, to stop or start a kubelet (nodes.go).
	Kubelet key.Binding
}

// newKeyMap returns the bindings with their help in lang.
func newKeyMap(lang string) keyMap {
	t := func(en, zh string) string {
		if lang == "zh" {
			return zh
		}
		return en
	}
	return keyMap{
		Next:      key.NewBinding(key.WithKeys(" ", "n"), key.WithHelp("space/n", t("next stage", "下一阶段"))),
		Mode:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", t("auto/step", "自动/单步"))),
		Faster:    key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", t("faster", "加速"))),
		Slower:    key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", t("slower", "减速"))),
		NextPane:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", t("panes", "切换窗格"))),
		PrevPane:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", t("prev pane", "上一窗格"))),
		Left:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/→", t("select stage", "选择阶段"))),
		Right:     key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→", t("next stage", "后一阶段"))),
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓ j/k", t("scroll", "滚动"))),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", t("scroll down", "向下滚动"))),
		PrevTab:   key.NewBinding(key.WithKeys("["), key.WithHelp("[/]", t("evidence tab", "证据标签"))),
		NextTab:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", t("next tab", "下一标签"))),
		Lang:      key.NewBinding(key.WithKeys("L"), key.WithHelp("L", t("中文", "English"))),
		Restart:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", t("restart", "重新开始"))),
		Picker:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", t("scenarios", "场景"))),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", t("help", "帮助"))),
		Quit:      key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", t("quit", "退出"))),
		Enter:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", t("start", "开始"))),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", t("back", "返回"))),
		Narration: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", t("read step", "步骤全文"))),
		Answer:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", t("show question", "显示问题"))),
		Choose:    key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", t("answer", "回答问题"))),
		Skip:      key.NewBinding(key.WithKeys(" ", "n"), key.WithHelp("space", t("skip answer", "跳过问题"))),
		Kubelet:   key.NewBinding(key.WithKeys("K"), key.WithHelp("K", t("stop/start kubelet", "停止/启动 kubelet"))),
	}
}

// ShortHelp is the help bar (help.KeyMap).
func (k keyMap) ShortHelp() []key.Binding {
	// ? and q come early: at 80 columns the bar is cut, and whoever
	// sees it must still learn how to get help and how to leave. + and -
	// are in the full help (the header shows the speed).
	return []key.Binding{k.Next, k.Mode, k.Help, k.Quit, k.Narration, k.Lang, k.NextPane, k.Left, k.Picker}
}

// FullHelp is the ? view (help.KeyMap).
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Mode, k.Narration, k.Faster, k.Slower, k.Choose, k.Skip},
		{k.NextPane, k.PrevPane, k.Left, k.Up, k.PrevTab},
		{k.Lang, k.Restart, k.Picker, k.Help, k.Quit, k.Answer, k.Kubelet},
	}
}
