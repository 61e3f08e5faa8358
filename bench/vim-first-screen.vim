" SPDX-License-Identifier: GPL-3.0-or-later
" The timing bench/vim-first-screen reports, run by test/vim/harness.vim in Vim or Neovim: how long
" after `:Maildex *` the list's first screen is in the buffer and the whole result has arrived (the
" plugin's own b:maildex_search.first_screen and .finished), and after `:MaildexTree *` the tree's
" first screen, $MAILDEX_VIM_RUNS times, into $MAILDEX_VIM_OUT/timing.json. Not a test: T600
" checks the same path by the work it does (test/vim/first-screen.vim).

function! Step_time() abort
  " a server starts with the first request of a session: that one is not timed
  let g:warm = 0
  call maildex#transport#run(['count', '*'], {'on_exit': {... -> execute('let g:warm = 1')}})
  call Wait('g:warm', 30000)
  let l:runs = []
  for l:i in range(max([1, str2nr($MAILDEX_VIM_RUNS)]))
    let l:start = reltime()
    Maildex *
    call Wait('has_key(b:maildex_search, "first_screen")', 60000)
    call Wait('b:maildex_search.done', 120000)
    let l:run = {'screen_lines': winheight(0),
          \ 'first_screen_ms': reltimefloat(reltime(l:start, b:maildex_search.first_screen)) * 1000,
          \ 'all_ms': reltimefloat(reltime(l:start, b:maildex_search.finished)) * 1000,
          \ 'threads': len(b:maildex_search.items) + len(b:maildex_search.pending)}
    call maildex#search#close()
    " the tree (where the plugin has one): until its first screen of lines is drawn (polled every 5 ms)
    if exists(':MaildexTree') == 2
      let l:start = reltime()
      MaildexTree *
      call Wait('len(b:maildex_tree.rows) >= ' . winheight(0), 60000)
      let l:run.tree_first_screen_ms = reltimefloat(reltime(l:start)) * 1000
      call maildex#tree#close()
    endif
    call add(l:runs, l:run)
  endfor
  call writefile([json_encode(l:runs)], $MAILDEX_VIM_OUT . '/timing.json')
endfunction
