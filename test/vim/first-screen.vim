" SPDX-License-Identifier: GPL-3.0-or-later
" T600's timing: `:Maildex *` on a generated store of more than 20,000 messages must put its first
" screen into the buffer within 200 ms of the command while the rest of the result still streams in
" (with the server transport, a server already started); then every thread arrives, and paging
" through them reaches the end. The plugin records when the first screen's last line and the last
" line of output arrived (b:maildex_search.first_screen, .finished); the best of three tries counts,
" and the milliseconds of each go to $MAILDEX_VIM_OUT/first-screen.ms for the test's output.

function! Step_16_first_screen() abort
  call assert_inrange(20000, 100000, str2nr(Maildex("count '*'")[0]))
  " a server is started once a session, by the first request: that one is not the one timed
  let g:warm = 0
  call maildex#transport#run(['count', '*'], {'on_exit': {... -> execute('let g:warm = 1')}})
  call Wait('g:warm')
  " Wall time on a shared machine is noisy: the best of three tries counts, and all are reported.
  let l:tries = []
  for l:try in range(3)
    if l:try > 0
      call maildex#search#close()
    endif
    let l:start = reltime()
    Maildex *
    let l:screen = winheight(0)
    call Wait('has_key(b:maildex_search, "first_screen")', 5000)
    call Wait('b:maildex_search.done', 30000)
    let l:first = reltimefloat(reltime(l:start, b:maildex_search.first_screen)) * 1000
    let l:last = reltimefloat(reltime(l:start, b:maildex_search.finished)) * 1000
    call add(l:tries, printf('%.0f', l:first))
    if l:first <= 200.0
      break
    endif
  endfor
  call writefile([printf('%d lines in %s ms, all %d threads in %.0f ms', l:screen, join(l:tries, ', then '),
        \ len(b:maildex_search.items) + len(b:maildex_search.pending), l:last)], $MAILDEX_VIM_OUT . '/first-screen.ms')
  call assert_inrange(0.0, 200.0, l:first, 'first screen in ms (tries: ' . join(l:tries, ', ') . ')')
  call assert_true(l:first < l:last, 'the first screen came before the end of the stream')
  call assert_true(len(b:maildex_search.items) < 200, 'only the first pages are drawn')
  call assert_equal(str2nr(Maildex("count --output=threads '*'")[0]),
        \ len(b:maildex_search.items) + len(b:maildex_search.pending))
  let l:presses = 0
  while getline('$') !=# 'End of search results.' && l:presses < 1000
    call Keys("\<Space>")
    let l:presses += 1
  endwhile
  call assert_equal(len(b:maildex_search.items) + 1, line('$'))
  call assert_equal('End of search results.', getline('$'))
endfunction
