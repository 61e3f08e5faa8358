" SPDX-License-Identifier: GPL-3.0-or-later
" The steps of T600-vim on test/corpora/emacs (user Maildex Tester <tester@example.org>), run in this
" order by harness.vim in Vim and in Neovim, over each transport. Screens are compared with
" test/expected/vim/NAME.out; what the plugin changed is checked with `maildex` itself.

" :help maildex, from the help tags of the plugin's doc/ (a copy of editors/vim made by the test).
function! Step_00_help() abort
  execute 'helptags' fnameescape($MAILDEX_VIM_PLUGIN . '/doc')
  help maildex-search
  call assert_equal('maildex.txt', fnamemodify(bufname('%'), ':t'))
  call assert_match('\*maildex-search\*', getline('.'))
  helpclose
endfunction

" The start page: counts of the saved searches (and the config's query.lists) and of every tag.
function! Step_01_hello() abort
  Maildex
  " the parts arrive in any order: the page is complete when every count has come
  call Wait('getline(1) =~# "13 messages" && search("  lists$", "nw") > 0 && search("signed$", "nw") > 0'
        \ . ' && search("^ \\{9}  \\S", "nw") == 0')
  call AssertScreen('01-hello')
endfunction

" Enter on "inbox" lists its threads, newest first, as they stream in.
function! Step_02_search() abort
  call search('  inbox$')
  call Keys("\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/tag:inbox', bufname('%'))
  call AssertScreen('02-search-inbox')
endfunction

" Pages: with three lines a page only three are drawn until the user moves on; <Space> draws more.
function! Step_03_pages() abort
  let g:maildex_page_lines = 3
  Maildex *
  call Wait('exists("b:maildex_search") && b:maildex_search.done')
  call assert_equal(3, line('$'))
  call assert_equal(4, len(b:maildex_search.pending))
  call Keys("\<Space>")
  call assert_inrange(6, 8, line('$'))
  call Keys("\<Space>\<Space>\<Space>")
  call assert_equal(8, line('$'))
  call assert_equal('End of search results.', getline('$'))
  unlet g:maildex_page_lines
  call Keys('o')
  call Wait('getline("$") ==# "End of search results."')
  call assert_match('Garden party on Saturday', getline(1))
  call Keys('q')
endfunction

" A thread: header lines, indented replies, the long quote and the signature folded.
function! Step_04_thread() abort
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call search('Garden party')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call assert_equal('maildex://thread/' . matchstr(bufname('%'), '\x\{16}$'), bufname('%'))
  call AssertScreen('04-thread-garden')
  let l:citation = search('^ *>', 'nw')
  let l:folds = []
  for l:lnum in range(1, line('$'))
    if foldclosed(l:lnum) == l:lnum
      call add(l:folds, l:lnum . ': ' . substitute(foldtextresult(l:lnum), '\s\+$', '', ''))
    endif
  endfor
  call AssertLines('04-folds', l:folds)
endfunction

" n and p walk the messages; Enter folds a message to its header line and opens it again.
function! Step_05_navigate() abort
  call cursor(1, 1)
  call Keys('n')
  call assert_match('^ Bob Builder', getline('.'))
  call Keys('nn')
  call assert_match('Maildex Tester', getline('.'))
  call Keys('p')
  call assert_match('^  Carol', getline('.'))
  call Keys("\<CR>")
  call assert_equal(line('.'), foldclosed('.'))
  call Keys("\<CR>")
  call assert_equal(-1, foldclosed('.'))
endfunction

" Walking onto Carol's unread message marked it read, as notmuch.el does; u toggles it.
function! Step_06_unread() abort
  call search('^  Carol <')
  call Wait('getline(".") =~# "(inbox)$"')
  call assert_equal([], Maildex('search --output=messages tag:unread and id:garden-3@example.net'))
  call Keys('u')
  call Wait('getline(".") =~# "(inbox unread)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:unread and id:garden-3@example.net'))
endfunction

" Tags from the thread (+ with its prompt), the list line updated in place when we go back.
function! Step_07_tag_thread() abort
  call search('^  Carol <')
  call Keys("+party later\<CR>")
  call Wait('getline(".") =~# "(inbox later party unread)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:party and tag:later'))
  call Keys("-lat\<Tab>\<CR>")
  call Wait('getline(".") =~# "(inbox party unread)$"')
  call Keys('q')
  call assert_equal('maildex://search/tag:inbox', bufname('%'))
  call Wait('getline(".") =~# "(inbox party unread)$"')
  call assert_match('Garden party on Saturday (inbox party unread)$', getline('.'))
endfunction

" From the list: + on a line, a on a line (archive: -inbox), u, and the lines change in place.
function! Step_08_tag_list() abort
  call search('Spring newsletter')
  call Keys("+news\<CR>")
  call Wait('getline(".") =~# "(inbox news unread)$"')
  call assert_equal(['thread:' . b:maildex_search.items[line('.') - 1].thread],
        \ Maildex('search --output=threads tag:news'))
  call Keys('u')
  call Wait('getline(".") =~# "(inbox news)$"')
  call Keys('a')
  call Wait('getline(line(".") - 1) =~# "(news)$"')
  call assert_equal([], Maildex('search --output=threads tag:news and tag:inbox'))
  call AssertScreen('08-search-tagged')
endfunction

" The HTML alternative is a hidden button; Enter shows it through the converter.
function! Step_09_html() abort
  Maildex tag:news
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('text/html (hidden)')
  call Keys("\<CR>")
  call Wait('search("HTML edition", "nw") > 0')
  call AssertScreen('09-thread-html')
  call Keys('q')
endfunction

" The PDF's button; s asks where to save it, and the file holds the attachment's bytes.
function! Step_10_attachment() abort
  Maildex tag:attachment
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call AssertScreen('10-thread-attachment')
  call search('minutes.pdf')
  let l:path = $MAILDEX_VIM_OUT . '/saved.pdf'
  call Keys("s\<C-u>" . l:path . "\<CR>")
  call Wait('getfsize($MAILDEX_VIM_OUT . "/saved.pdf") == getfsize($MAILDEX_VIM_CORPUS . "/minutes.pdf")')
  call assert_equal(readfile($MAILDEX_VIM_CORPUS . '/minutes.pdf', 'B'), readfile(l:path, 'B'))
  call Keys('q')
endfunction

" The signed message says whose signature it is; the encrypted one is decrypted (the test's keys).
function! Step_11_signed() abort
  Maildex tag:signed
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call AssertScreen('11-thread-signed')
  call Keys('q')
  Maildex tag:encrypted
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) =~# "(encrypted inbox)$"')
  call AssertScreen('11-thread-encrypted')
  call Keys('q')
endfunction

" Reply to all from the thread: the headers maildex reply gives, the quote, sent through the mock
" sendmail, the copy filed with maildex insert in the mail root's Sent/ (T600 names it as mbsync
" does; tagged sent, no lowercase sent/ made), the original tagged replied.
function! Step_12_reply() abort
  Maildex id:minutes-2@example.org
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('^ Alice Example')
  call Keys('R')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call AssertScreen('12-reply')
  call Keys("GoSee you there.\<Esc>")
  call Keys("\<C-c>\<C-c>")
  call Wait('len(Maildex("search --output=files folder:Sent and subject:minutes")) == 1')
  let l:sent = readfile(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1)[0])
  call assert_equal(['-t -oi'], readfile(glob($MAILDEX_VIM_OUT . '/sent-*.args', 0, 1)[0]))
  call assert_notequal(-1, index(l:sent, 'Subject: Re: Minutes of the meeting'))
  call assert_notequal(-1, index(l:sent, 'In-Reply-To: <minutes-2@example.org>'))
  call assert_notequal(-1, index(l:sent, 'See you there.'))
  call Wait('Maildex("search --output=messages tag:replied and id:minutes-2@example.org") == ["id:minutes-2@example.org"]')
  let l:filed = Maildex('search --output=messages tag:sent and folder:Sent and subject:minutes and not tag:inbox')
  call assert_equal(1, len(l:filed))
  call assert_equal(l:sent, readfile(Maildex('search --output=files ' . l:filed[0])[0]))
  call assert_match('^' . $MAIL_DIR . '/Sent/cur/', Maildex('search --output=files ' . l:filed[0])[0])
  call assert_false(isdirectory($MAIL_DIR . '/sent'), 'a lowercase sent/ was made')
endfunction

" A new message: the To line completes from maildex address, non-ASCII headers are encoded.
function! Step_13_compose() abort
  MaildexCompose
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Wait('maildex#address#ready()')
  call assert_equal('To: ', getline(2))
  call Keys("Aali\<C-x>\<C-o>\<Esc>")
  call assert_equal('To: Alice Example <alice@example.org>', getline(2))
  call Keys("4GA Grüße aus Köln\<Esc>Go Tschüß\<Esc>")
  call Keys(":MaildexSend\<CR>")
  call Wait('len(Maildex("search --output=files folder:Sent and subject:Köln")) == 1')
  let l:file = Maildex('search --output=files folder:Sent and subject:Köln')
  call assert_equal(['Grüße aus Köln'],
        \ map(Maildex('show --format=json folder:Sent and subject:Köln'), 'json_decode(v:val)[0][0][0].headers.Subject'))
  call assert_equal(['Maildex Tester <tester@example.org>	Alice Example <alice@example.org>'],
        \ map(Maildex('show --format=json folder:Sent and subject:Köln'),
        \ 'json_decode(v:val)[0][0][0].headers.From . "\t" . json_decode(v:val)[0][0][0].headers.To'))
  call assert_match('^Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe_aus_K=C3=B6ln?=$',
        \ readfile(l:file[0])[index(map(readfile(l:file[0]), 'v:val =~# "^Subject:"'), 1)])
endfunction

" A command that fails: its argv and message in the one error buffer.
function! Step_14_errors() abort
  call maildex#error#clear()
  Maildex and
  call Wait('getline("$") =~# "^The search failed"')
  MaildexErrors
  call assert_equal('maildex://errors', bufname('%'))
  call assert_match("^\\d\\d:\\d\\d:\\d\\d maildex search --format=json --format-version=5 --sort=newest-first and failed (exit status 1):$", getline(1))
  call assert_match('^    ', getline(2))
endfunction

" New mail while a list is open: the list refreshes itself (revision polling, or the server's events).
function! Step_15_refresh() abort
  let g:maildex_poll_interval = 100
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call Wait('maildex#poll#revision() !=# ""')
  call system('maildex insert --folder=lists/dev', readfile($MAILDEX_VIM_CORPUS . '/later/1000000014.dev3', 'b'))
  call Wait('search("Dave Developer, Erin", "nw") > 0 && getline(search("The build is broken", "nw")) =~# "\\[3/3\\]"', 5000)
  let g:maildex_poll_interval = 0
endfunction

" f forwards the message at the cursor: its headers and text inline, the subject as notmuch.el's.
function! Step_17_forward() abort
  Maildex tag:attachment
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call Keys('f')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('Subject: [Bob Builder] Minutes of the meeting', getline(4))
  call assert_notequal(0, search('^The minutes are attached\.$', 'nw'))
  call assert_notequal(0, search('^\[ minutes\.pdf: application/pdf (737 bytes) \]$', 'nw'))
  bwipeout!
endfunction

" g:maildex_html_command: the HTML part goes through the converter as a job, and is drawn when done.
function! Step_18_html_command() abort
  let g:maildex_html_command = ['sed', '-e', 's/<[^>]*>//g', '-e', 's/Spring/Autumn/']
  Maildex tag:news
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('text/html (hidden)')
  call Keys("\<CR>")
  call Wait('search("^Autumn is here: the HTML edition\\.$", "nw") > 0')
  unlet g:maildex_html_command
endfunction

" N on the start page runs `maildex new`: a failing one (a pre-new hook that exits 3) is reported as
" an error (ErrorMsg, v:errmsg, the error buffer) and nothing says it succeeded; then one that works.
function! Step_19_new_error() abort
  let l:hook = Maildex('config get database.hook_dir')[0] . '/pre-new'
  call mkdir(fnamemodify(l:hook, ':h'), 'p')
  call writefile(['#!/bin/sh', 'echo "the mail server is offline" >&2', 'exit 3'], l:hook)
  call setfperm(l:hook, 'rwxr-xr-x')
  call maildex#error#clear()
  messages clear
  Maildex
  call Wait('getline(1) =~# "You have \\d\\+ messages"')
  let v:errmsg = ''
  call Keys('N')
  call Wait('v:errmsg !=# ""', 10000)
  call assert_match('^maildex: new failed (exit status 1): the mail server is offline (:MaildexErrors)$', v:errmsg)
  call assert_match(' new failed (exit status 1):$', get(filter(maildex#error#log(), 'v:val =~# " new "'), 0, ''))
  call assert_equal([], filter(split(execute('messages'), "\n"), 'v:val =~# "^maildex new: "'))
  call delete(l:hook)
  call Keys('N')
  call Wait('!empty(filter(split(execute("messages"), "\n"), "v:val =~# \"^maildex new: \""))', 10000)
  call assert_equal(['maildex new: No new mail.'], filter(split(execute('messages'), "\n"), 'v:val =~# "^maildex new: "'))
  call Keys('q')
endfunction

" A list's n, p and G over threads not drawn yet (three a page): n past the last line drawn draws
" the next and goes there, p stops at the first, G draws every thread and goes to the end.
function! Step_20_list_keys() abort
  let g:maildex_page_lines = 3
  Maildex *
  call Wait('exists("b:maildex_search") && b:maildex_search.done')
  call assert_equal(3, line('$'))
  call cursor(1, 1)
  call Keys('nn')
  call assert_equal(3, line('.'))
  call Keys('n')
  call assert_equal(4, line('.'))
  call assert_notequal(-1, stridx(getline(4), b:maildex_search.items[3].subject))
  call Keys('3p')
  call assert_equal(1, line('.'))
  call Keys('p')
  call assert_equal(1, line('.'))
  call Keys('G')
  call assert_equal('End of search results.', getline('$'))
  call assert_equal(line('$'), line('.'))
  call assert_equal(len(b:maildex_search.items) + 1, line('$'))
  call Keys('n')
  call assert_equal(line('$'), line('.'), 'n stays on the last line')
  call Keys('p')
  call assert_equal(line('$') - 1, line('.'))
  call Keys('2G')
  call assert_equal(2, line('.'))
  unlet g:maildex_page_lines
  call Keys('q')
endfunction

" Z in a list: its query's messages as a tree, one line each with its place in the thread drawn
" as notmuch-tree draws it; Enter opens the thread on that message; tags change from the tree; Z
" in a thread: its tree. (Not the minutes' thread, which has the reply of Step_12, dated today.)
function! Step_21_tree() abort
  Maildex tag:inbox and not subject:minutes
  call Wait('getline("$") ==# "End of search results."')
  call Keys('Z')
  call Wait('&filetype ==# "maildextree" && getline("$") ==# "End of search results."')
  call assert_equal('maildex://tree/tag:inbox and not subject:minutes', bufname('%'))
  call AssertScreen('21-tree')
  call cursor(1, 1)
  call Keys('3n')
  call assert_equal(4, line('.'))
  call Keys('p')
  call assert_equal(3, line('.'))
  call search('  Carol  ')
  call Keys("\<CR>")
  call Wait('&filetype ==# "maildexshow" && getline(1) !~# "^Loading"')
  call assert_match('^  Carol <carol@example.net>', getline('.'))
  call Keys('q')
  call assert_equal('maildex://tree/tag:inbox and not subject:minutes', bufname('%'))
  call assert_match('  Carol ', getline('.'))
  call Keys("+treetag\<CR>")
  call Wait('getline(".") =~# " treetag)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:treetag'))
  call Keys('u')
  call Wait('getline(".") =~# "(inbox party treetag unread)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:treetag and tag:unread'))
  call Keys('G')
  call assert_equal(line('$'), line('.'))
  call Keys('q')
  " from a thread
  Maildex id:dev-1@lists.example.org
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call Keys('Z')
  call Wait('&filetype ==# "maildextree" && getline("$") ==# "End of search results."')
  call assert_match('^maildex://tree/thread:\x\+$', bufname('%'))
  call AssertScreen('21-tree-thread')
  call Keys('q')
endfunction

" Files attached with :MaildexAttach and CTRL-C CTRL-A go out as base64 parts of a multipart/mixed
" message, byte for byte (every byte value, NUL, CR and LF among them; sizes that leave one and two
" bytes over for base64), a non-ASCII name as RFC 2231 says; a file that is gone stops the sending.
function! Step_22_attach() abort
  let l:notes = $MAILDEX_VIM_OUT . '/Notizen über Köln.txt'
  call writefile(['eins', 'zwei'], l:notes)
  let l:binary = $MAILDEX_VIM_OUT . '/Grüße.bin'
  let l:bytes = 0z
  for l:i in range(3 * 256 + 1)
    call add(l:bytes, (l:i * 7) % 256)
  endfor
  call writefile(l:bytes, l:binary, 'b')
  MaildexCompose alice@example.org
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Keys("4GASending the minutes again\<Esc>GAHere they are.\<Esc>")
  execute 'MaildexAttach' fnameescape($MAILDEX_VIM_CORPUS . '/minutes.pdf')
  call assert_equal('Attach: ' . $MAILDEX_VIM_CORPUS . '/minutes.pdf', getline(5))
  call Keys("\<C-c>\<C-a>" . l:notes . "\<CR>")
  call assert_equal('Attach: ' . l:notes, getline(6))
  call maildex#error#clear()
  MaildexAttach /nonexistent/file.pdf
  call assert_match('^maildex: cannot attach /nonexistent/file.pdf', v:errmsg)
  call assert_equal('', getline(7))
  execute 'MaildexAttach' fnameescape(l:binary)
  call assert_equal('Attach: ' . l:binary, getline(7))
  " a file that vanishes before sending: an error, nothing sent
  call append(7, 'Attach: ' . $MAILDEX_VIM_OUT . '/vanished.pdf')
  let l:sent = len(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1))
  call Keys("\<C-c>\<C-c>")
  call assert_match('^maildex: cannot attach .*/vanished.pdf', v:errmsg)
  call assert_equal(l:sent, len(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1)))
  8delete
  call Keys("\<C-c>\<C-c>")
  call Wait('len(Maildex("search --output=files folder:Sent and subject:again")) == 1')
  let l:id = Maildex('search --output=messages folder:Sent and subject:again')[0]
  let l:parts = json_decode(join(Maildex('show --format=json --part=1 ' . l:id), ''))
  call assert_equal('multipart/mixed', l:parts['content-type'])
  let l:body = l:parts.content
  call assert_equal(['text/plain', 'application/pdf', 'text/plain', 'application/octet-stream'], map(copy(l:body), 'v:val["content-type"]'))
  call assert_equal('Here they are.', l:body[0].content)
  call assert_equal(['minutes.pdf', 'Notizen über Köln.txt', 'Grüße.bin'], [l:body[1].filename, l:body[2].filename, l:body[3].filename])
  call system('maildex show --format=raw --part=' . l:body[3].id . ' ' . l:id . ' > ' . shellescape($MAILDEX_VIM_OUT . '/attached.bin'))
  call assert_equal(l:bytes, readfile($MAILDEX_VIM_OUT . '/attached.bin', 'B'))
  call system('maildex show --format=raw --part=' . l:body[1].id . ' ' . l:id . ' > ' . shellescape($MAILDEX_VIM_OUT . '/attached.pdf'))
  call assert_equal(readfile($MAILDEX_VIM_CORPUS . '/minutes.pdf', 'B'), readfile($MAILDEX_VIM_OUT . '/attached.pdf', 'B'))
  call assert_equal(['eins', 'zwei'], Maildex('show --format=raw --part=' . l:body[2].id . ' ' . l:id))
  let l:eml = readfile(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1)[-1])
  call assert_notequal(-1, match(l:eml, "^Content-Disposition: attachment; filename\\*=UTF-8''Notizen%20%C3%BCber%20K%C3%B6ln.txt$"))
  call assert_equal(-1, match(l:eml, '^Attach:'))
endfunction

" Drafts: :write files the buffer in Drafts/ (made, since the mail root has no drafts folder; never
" a lowercase drafts/) tagged draft; a second save (CTRL-C CTRL-P, which closes the buffer too)
" removes the first from the disk and the store; e on the thread in a list resumes the draft without
" the headers saving added, and saving it again removes the one resumed; e in the thread view resumes
" the newest, and sending it files the message in Sent/ and removes the last draft: no draft left.
function! Step_23_draft() abort
  MaildexCompose bob@example.com
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Keys("4GAPlans for the party\<Esc>GAFirst thoughts.\<Esc>")
  call assert_equal(1, &modified)
  execute 'MaildexAttach' fnameescape($MAILDEX_VIM_CORPUS . '/minutes.pdf')
  " :write returns once the draft is in (so :wq and :x never close an unsaved one)
  write
  call assert_false(&modified, 'modified after :write')
  let l:drafts = Maildex('search --output=files tag:draft and subject:"Plans for the party"')
  call assert_equal(1, len(l:drafts))
  call assert_match('^' . $MAIL_DIR . '/Drafts/cur/', get(l:drafts, 0, ''))
  call assert_false(isdirectory($MAIL_DIR . '/drafts'), 'a lowercase drafts/ was made')
  let l:text = readfile(l:drafts[0])
  call assert_notequal(-1, index(l:text, 'X-Maildex-Draft: True'))
  call assert_notequal(-1, index(l:text, 'Attach: ' . $MAILDEX_VIM_CORPUS . '/minutes.pdf'))
  call assert_equal([], Maildex('search --output=messages ' . shellescape('tag:draft and subject:Plans and (tag:inbox or tag:unread)')))
  let l:first = Maildex('search --output=messages tag:draft and subject:Plans')
  call Keys("GoSecond thoughts.\<Esc>\<C-c>\<C-p>")
  call Wait('&filetype !=# "mail.maildexcompose"')
  " the first draft is gone, file and message, not only tagged: one draft of the message is left
  call Wait('Maildex("count --exclude=false " . ' . string(l:first[0]) . ') == ["0"]')
  call assert_false(filereadable(l:drafts[0]), 'the first draft file is still there')
  let l:second = Maildex('search --output=files --exclude=false tag:draft and subject:Plans')
  call assert_equal(1, len(l:second))
  call assert_notequal(l:drafts, l:second)
  " e on the thread's line in a list
  Maildex tag:draft
  call Wait('getline("$") ==# "End of search results."')
  call search('Plans for the party')
  call Keys('e')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call AssertScreen('23-draft-resumed')
  call Keys("GoThird thoughts.\<Esc>")
  write
  call Wait('Maildex("search --output=files --exclude=false tag:draft and subject:Plans") != ' . string(l:second))
  call assert_equal(1, len(Maildex('search --output=files --exclude=false tag:draft and subject:Plans')))
  call assert_false(filereadable(l:second[0]), 'the resumed draft file is still there')
  bwipeout!
  " e in the thread view, then sent
  Maildex tag:draft
  call Wait('getline("$") ==# "End of search results."')
  call search('Plans for the party')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call Keys('e')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_notequal(0, search('^Third thoughts\.$', 'nw'))
  call Keys("\<C-c>\<C-c>")
  call Wait('len(Maildex("search --output=files folder:Sent and subject:Plans")) == 1')
  call Wait('Maildex("search --output=files --exclude=false tag:draft and subject:Plans") == []')
  call assert_equal([], glob($MAIL_DIR . '/Drafts/*/*', 0, 1), 'files left in Drafts/')
  let l:sent = readfile(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1)[-1])
  call assert_equal(-1, match(l:sent, '^X-Maildex-Draft:'))
  call assert_notequal(-1, index(l:sent, 'Second thoughts.'))
  call assert_notequal(-1, index(l:sent, 'Third thoughts.'))
  call assert_notequal(-1, match(l:sent, '^Content-Type: application/pdf; name="minutes.pdf"$'))
endfunction

" Where Fcc and drafts go: the folder the mail root has, spelt as the sync tool made it (capitals
" before an all-lowercase sent/ made beside it); a new Sent or Drafts only when there is none;
" g:maildex_fcc as the user names it, spelt as the disk has it.
function! Step_24_folders() abort
  let l:cases = [
        \ [['INBOX', 'Sent', 'Drafts', 'Trash'], 'Sent', 'Drafts'],
        \ [['.INBOX', '.Sent', '.Drafts'], '.Sent', '.Drafts'],
        \ [['INBOX', '[Gmail]/Sent Mail', '[Gmail]/Drafts', '[Gmail]/All Mail'], '[Gmail]/Sent Mail', '[Gmail]/Drafts'],
        \ [['INBOX', 'INBOX.Sent Items', 'INBOX.Draft'], 'INBOX.Sent Items', 'INBOX.Draft'],
        \ [['sent', 'archive/2020/sent', 'drafts'], 'sent', 'drafts'],
        \ [['INBOX', 'Sent Messages', 'Archive/Sent'], 'Sent Messages', 'Drafts'],
        \ [['INBOX', 'lists/dev'], 'Sent', 'Drafts'],
        \ [['INBOX', 'sent', 'drafts', '[Gmail]/Sent Mail', '[Gmail]/Drafts'], '[Gmail]/Sent Mail', '[Gmail]/Drafts'],
        \ [['sent', 'Sent', 'archive/2020/Sent'], 'Sent', 'Drafts'],
        \ [['sent', 'archive/2020/Sent'], 'sent', 'Drafts'],
        \ ]
  for l:i in range(len(l:cases))
    let [l:folders, l:sent, l:drafts] = l:cases[l:i]
    let l:root = $MAILDEX_VIM_OUT . '/root' . l:i
    for l:folder in l:folders
      call mkdir(l:root . '/' . l:folder . '/cur', 'p')
    endfor
    call assert_equal([l:sent, l:drafts], [maildex#folders#find(l:root, 'sent'), maildex#folders#find(l:root, 'drafts')],
          \ join(l:folders))
  endfor
  let l:config = {'database.mail_root': $MAILDEX_VIM_OUT . '/root2'}
  call assert_equal({'argv': ['insert', '--create-folder', '--folder=[Gmail]/Sent Mail', '+sent', '-unread', '-inbox'],
        \ 'folder': '[Gmail]/Sent Mail'}, maildex#folders#insert('sent', l:config))
  let g:maildex_fcc = 'Outbox +sent'
  call assert_equal(['insert', '--create-folder', '--folder=Outbox', '+sent'], maildex#folders#insert('sent', l:config).argv)
  let g:maildex_fcc = ['Sent Items', '+sent', '-inbox']
  call assert_equal(['insert', '--create-folder', '--folder=Sent Items', '+sent', '-inbox'], maildex#folders#insert('sent', l:config).argv)
  " the user's folder as the disk spells it
  let g:maildex_fcc = ['[gmail]/sent mail', '+sent']
  call assert_equal('[Gmail]/Sent Mail', maildex#folders#insert('sent', l:config).folder)
  let g:maildex_fcc = ''
  call assert_equal({}, maildex#folders#insert('sent', l:config))
  unlet g:maildex_fcc
  " no mail root known (config list failed), no folder named: an error, not a guess
  call assert_equal('the mail root is not known (maildex config list failed: :MaildexErrors) and g:maildex_fcc names no folder',
        \ get(maildex#folders#insert('sent', {}), 'error', ''))
endfunction

" The other keys, as :help maildex says: in a list l and t narrow the query, = runs it again with
" the cursor on its thread, r answers the sender; in a thread o opens the attachment with
" g:maildex_open_command, a archives the message and moves on, = reloads on the same message, x
" goes back; the start page's = draws it again and q closes it.
function! Step_25_keys() abort
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call Keys("lfrom:alice\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/(tag:inbox) and (from:alice)', bufname('%'))
  call Keys("tsigned\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/((tag:inbox) and (from:alice)) and (tag:signed)', bufname('%'))
  call assert_equal(2, line('$'))
  call assert_match('Signed release notes', getline(1))
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call search('Minutes of the meeting')
  let l:line = line('.')
  call Keys('=')
  call Wait('getline("$") ==# "End of search results." && line(".") == ' . l:line)
  call assert_match('Minutes of the meeting', getline('.'))
  call Keys('r')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('To: Alice Example <alice@example.org>', getline(2))
  bwipeout!
  let g:maildex_open_command = ['sh', '-c', 'cp "$1" "$0"', $MAILDEX_VIM_OUT . '/opened.pdf']
  Maildex tag:attachment
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('minutes.pdf')
  call Keys('o')
  call Wait('getfsize($MAILDEX_VIM_OUT . "/opened.pdf") == getfsize($MAILDEX_VIM_CORPUS . "/minutes.pdf")')
  call assert_equal(readfile($MAILDEX_VIM_CORPUS . '/minutes.pdf', 'B'), readfile($MAILDEX_VIM_OUT . '/opened.pdf', 'B'))
  unlet g:maildex_open_command
  call cursor(1, 1)
  call Keys('a')
  call assert_match('^ Alice Example', getline('.'))
  call Wait('Maildex("search --output=messages id:minutes-1@example.com and tag:inbox") == []')
  call Keys('=')
  call Wait('b:maildex_show.loaded && getline(".") =~# "^ Alice Example"')
  call Keys('x')
  call assert_equal('maildex://search/tag:attachment', bufname('%'))
  Maildex
  call Wait('getline(1) =~# "You have \\d\\+ messages"')
  call maildex#util#set_lines(bufnr('%'), 1, ['scribbled'], 0)
  call Keys('=')
  call Wait('getline(1) =~# "You have \\d\\+ messages"')
  call Keys('q')
  call assert_notequal('maildex://hello', bufname('%'))
endfunction

" P on the start page: `maildex purge` of the mail tagged deleted, once its plan is accepted (here
" by g:Maildex_purge_confirm, which sees the plan); declined, nothing goes.
function! Step_26_purge() abort
  let l:id = shellescape(Maildex("search --output=messages --limit=1 --sort=oldest-first '*'")[0])
  call Maildex('tag +deleted -- ' . l:id)
  let l:n = str2nr(Maildex('count --exclude=false tag:deleted')[0])
  let l:plans = []
  let g:Maildex_purge_confirm = {plan -> len(add(l:plans, plan)) > 1}
  Maildex
  call Wait('getline(1) =~# "You have \\d\\+ messages"')
  messages clear
  call Keys('P')
  call Wait('!empty(filter(split(execute("messages"), "\n"), "v:val =~# \"^maildex purge: \""))', 10000)
  call assert_equal(['maildex purge: nothing was removed'], filter(split(execute('messages'), "\n"), 'v:val =~# "^maildex purge: "'))
  call assert_equal(['1'], Maildex('count --exclude=false ' . l:id))
  messages clear
  call Keys('P')
  call Wait('!empty(filter(split(execute("messages"), "\n"), "v:val =~# \"^maildex purge: R\""))', 10000)
  call assert_match('^maildex purge: Removed ' . l:n . ' messages\=: \d\+ files\=, \d\+ bytes\.$', get(filter(split(execute('messages'), "\n"), 'v:val =~# "^maildex purge: R"'), 0, ''))
  call assert_equal(['0'], Maildex('count --exclude=false tag:deleted'))
  call assert_equal(l:n, l:plans[0].messages)
  unlet g:Maildex_purge_confirm
  call Keys('q')
endfunction

" Failures are errors, never success: sendmail refusing the message (its message and exit status;
" the buffer stays, nothing filed, no "Message sent"); an Fcc that cannot be filed; a draft that
" cannot be saved (:write fails as a write does, the buffer stays modified; CTRL-C CTRL-P keeps it
" open); an attachment or a reply whose message file has gone (no file left where it was to go).
function! Step_27_errors() abort
  let l:sendmail = $MAILDEX_VIM_OUT . '/failing-sendmail'
  call writefile(['#!/bin/sh', 'cat > /dev/null', 'echo "sendmail: cannot connect to the relay" >&2', 'exit 75'], l:sendmail)
  call setfperm(l:sendmail, 'rwxr-xr-x')
  let l:mock = g:maildex_sendmail
  let g:maildex_sendmail = [l:sendmail]
  MaildexCompose alice@example.org
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Keys("4GANot sent yet\<Esc>GAHello.\<Esc>")
  let l:buf = bufnr('%')
  messages clear
  let v:errmsg = ''
  call Keys("\<C-c>\<C-c>")
  call Wait('v:errmsg !=# ""')
  call assert_equal('maildex: failing-sendmail failed (exit status 75): sendmail: cannot connect to the relay (:MaildexErrors)', v:errmsg)
  call assert_equal(l:buf, bufnr('%'), 'the mail buffer stays')
  call assert_equal([], filter(split(execute('messages'), "\n"), 'v:val =~# "Message sent"'))
  call assert_equal([], Maildex('search --output=files subject:"Not sent yet"'))
  let g:maildex_sendmail = l:mock
  " sent, but the copy cannot be filed
  let g:maildex_fcc = '../outside +sent'
  let v:errmsg = ''
  call Keys("\<C-c>\<C-c>")
  call Wait('v:errmsg =~# " insert "')
  call assert_match('^maildex: insert failed (exit status 1): maildex insert: invalid folder name ''../outside''', v:errmsg)
  unlet g:maildex_fcc
  " a draft that cannot be saved
  MaildexCompose bob@example.com
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Keys("4GANot saved\<Esc>")
  let g:maildex_drafts = '../outside +draft'
  let l:failed = ''
  try
    write
  catch
    let l:failed = v:exception
  endtry
  call assert_match('maildex: the draft was not saved: maildex insert failed (exit status 1): maildex insert: invalid folder name', l:failed)
  call assert_true(&modified, 'modified after a failed :write')
  let v:errmsg = ''
  call Keys("\<C-c>\<C-p>")
  call Wait('v:errmsg =~# " insert "')
  call assert_equal('mail.maildexcompose', &filetype, 'CTRL-C CTRL-P closed a buffer whose draft was not saved')
  unlet g:maildex_drafts
  bwipeout!
  " show, reply and config failing (a maildex whose show --format=raw prints half a part and
  " fails): no file where the attachment was to go, no mail buffer, no Fcc into a folder guessed
  let l:wrapper = $MAILDEX_VIM_OUT . '/failing-maildex'
  call writefile(['#!/bin/sh', 'case "$*" in',
        \ '*--format=raw*|reply*|config*) printf "half a part"; echo "maildex $1: cannot read the file" >&2; exit 1 ;;',
        \ 'esac', 'exec maildex "$@"'], l:wrapper)
  call setfperm(l:wrapper, 'rwxr-xr-x')
  Maildex id:minutes-1@example.com
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  let [l:transport, g:maildex_transport, g:maildex_command] = [g:maildex_transport, 'process', l:wrapper]
  call search('minutes.pdf')
  let l:path = $MAILDEX_VIM_OUT . '/not-saved.pdf'
  let v:errmsg = ''
  call Keys("s\<C-u>" . l:path . "\<CR>")
  call Wait('v:errmsg !=# ""')
  call assert_equal('maildex: show failed (exit status 1): maildex show: cannot read the file (:MaildexErrors)', v:errmsg)
  call assert_equal([], glob(l:path . '*', 0, 1), 'a file was left where the attachment was to go')
  let v:errmsg = ''
  call Keys('r')
  call Wait('v:errmsg !=# ""')
  call assert_equal('maildex: reply failed (exit status 1): maildex reply: cannot read the file (:MaildexErrors)', v:errmsg)
  call assert_equal('maildexshow', &filetype)
  call Keys('q')
  call maildex#config#reset()
  MaildexCompose alice@example.org
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Keys("4GANot filed\<Esc>GAText.\<Esc>")
  let v:errmsg = ''
  call Keys("\<C-c>\<C-c>")
  call Wait('v:errmsg =~# "not filed"')
  call assert_equal('maildex: the sent copy was not filed: the mail root is not known (maildex config list failed:'
        \ . ' :MaildexErrors) and g:maildex_fcc names no folder', v:errmsg)
  call assert_equal([], Maildex('search --output=files subject:"Not filed"'))
  let g:maildex_transport = l:transport
  unlet g:maildex_command
  call maildex#config#reset()
endfunction

" Fcc into the folder g:maildex_fcc names, spelt as the disk has it: "sent" files into the Sent/
" the mail root has (no sent/ made beside it), "[gmail]/sent mail" into Gmail's [Gmail]/Sent Mail.
function! Step_28_fcc_configured() abort
  for l:dir in ['cur', 'new', 'tmp']
    call mkdir($MAIL_DIR . '/[Gmail]/Sent Mail/' . l:dir, 'p')
  endfor
  let l:cases = [['sent +sent -unread', 'Sent', 'Fcc as written'],
        \ [['[gmail]/sent mail', '+sent', '-unread'], '[Gmail]/Sent Mail', 'Fcc to Gmail']]
  for [l:setting, l:folder, l:subject] in l:cases
    let g:maildex_fcc = l:setting
    MaildexCompose alice@example.org
    call Wait('&filetype ==# "mail.maildexcompose"')
    call Keys('4GA' . l:subject . "\<Esc>GAText.\<Esc>\<C-c>\<C-c>")
    call Wait('len(Maildex("search --output=files subject:\"' . l:subject . '\"")) == 1')
    let l:file = Maildex('search --output=files subject:"' . l:subject . '"')[0]
    call assert_equal($MAIL_DIR . '/' . l:folder . '/cur/', l:file[: len($MAIL_DIR . '/' . l:folder . '/cur/') - 1])
    call assert_equal(['1'], Maildex('count tag:sent and not tag:unread and subject:"' . l:subject . '"'))
  endfor
  unlet g:maildex_fcc
  call assert_false(isdirectory($MAIL_DIR . '/sent'), 'a lowercase sent/ was made')
  call assert_false(isdirectory($MAIL_DIR . '/[gmail]'), 'a lowercase [gmail]/ was made')
endfunction

" G while the search is still streaming (a maildex that prints three threads, then the rest once
" the test makes a gate file): the cursor follows the threads that come after G to the end; moved
" away before they come, it stays where it was put.
function! Step_29_list_follow() abort
  let l:gate = $MAILDEX_VIM_OUT . '/gate'
  let l:wrapper = $MAILDEX_VIM_OUT . '/gated-maildex'
  call writefile(['#!/bin/sh', 'case "$*" in search\ --format=json\ *--sort=*) ;; *) exec maildex "$@" ;; esac',
        \ 'maildex "$@" > "$0.$$"; status=$?', 'head -n 3 "$0.$$"', 'i=0',
        \ 'while [ ! -e ' . shellescape(l:gate) . ' ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done',
        \ 'tail -n +4 "$0.$$"', 'rm -f "$0.$$"', 'exit $status'], l:wrapper)
  call setfperm(l:wrapper, 'rwxr-xr-x')
  let [l:transport, g:maildex_transport, g:maildex_command] = [g:maildex_transport, 'process', l:wrapper]
  for l:away in [0, 1]
    call delete(l:gate)
    Maildex *
    call Wait('line("$") == 3 && getline(3) !=# ""')
    call assert_false(b:maildex_search.done, 'the search ended before the gate')
    call Keys('G')
    call assert_equal(3, line('.'))
    if l:away
      call Keys('k')
    endif
    call writefile([], l:gate)
    call Wait('b:maildex_search.done && getline("$") ==# "End of search results."')
    call assert_inrange(6, 20, line('$'))
    call assert_equal(l:away ? 2 : line('$'), line('.'), l:away ? 'moved away, the cursor stays' : 'G follows to the end')
  endfor
  let g:maildex_transport = l:transport
  unlet g:maildex_command
  call Keys('q')
endfunction

" The start page's keys that start something: s a search, Z a tree (each on the command line), m a
" new message.
function! Step_30_hello_keys() abort
  Maildex
  call Wait('getline(1) =~# "You have \\d\\+ messages"')
  call Keys("stag:signed\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/tag:signed', bufname('%'))
  call Keys('q')
  call assert_equal('maildex://hello', bufname('%'))
  call Keys("Ztag:signed\<CR>")
  call Wait('&filetype ==# "maildextree" && getline("$") ==# "End of search results."')
  call assert_equal('maildex://tree/tag:signed', bufname('%'))
  call assert_match('Alice Example  *─►Signed release notes  *(inbox signed)$', getline(1))
  call Keys('q')
  call Keys('m')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal(['From: Maildex Tester <tester@example.org>', 'To: ', 'Cc: ', 'Subject: ', ''], getline(1, 5))
  call s:discard()
endfunction

" A list's other keys: * tags every match of the query, + - a on the threads of a Visual selection,
" R answers everybody (r only the sender), s starts a search, m a message, q closes the list.
function! Step_31_list_keys() abort
  Maildex tag:signed or tag:encrypted
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal(3, line('$'))
  call Keys("*starred\<CR>")
  call Wait('Maildex("count tag:starred") == ["2"]')
  call Wait('getline(1) =~# "starred" && getline(2) =~# "starred"')
  call cursor(1, 1)
  call Keys("Vj+vis\<CR>")
  call Wait('getline(1) =~# " vis" && getline(2) =~# " vis"')
  call assert_equal(['2'], Maildex('count tag:vis'))
  call Keys("Vj-vis starred\<CR>")
  call Wait('getline(1) !~# "vis\\|starred" && getline(2) !~# "vis\\|starred"')
  call assert_equal(['0'], Maildex('count tag:vis or tag:starred'))
  call Keys('Vja')
  call Wait('Maildex("count ''tag:inbox and (tag:signed or tag:encrypted)''") == ["0"]')
  call Wait('getline(1) !~# "inbox" && getline(2) !~# "inbox"')
  call Maildex('tag +inbox -- tag:signed or tag:encrypted')
  Maildex id:minutes-2@example.org
  call Wait('getline("$") ==# "End of search results."')
  call Keys('R')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('To: Alice Example <alice@example.org>, Bob Builder <bob@example.com>', getline(2))
  call s:discard()
  call Keys('r')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('To: Alice Example <alice@example.org>', getline(2))
  call s:discard()
  call Keys('m')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('From: Maildex Tester <tester@example.org>', getline(1))
  call s:discard()
  call Keys("sfrom:carol\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/from:carol', bufname('%'))
  call Keys('q')
  call assert_equal('maildex://search/id:minutes-2@example.org', bufname('%'))
  call Keys('q')
  call assert_notequal('maildex://search/id:minutes-2@example.org', bufname('%'))
endfunction

" Leaves a mail buffer without sending or saving it, for the view it was opened from.
function! s:discard() abort
  setlocal nomodified
  call maildex#util#close()
endfunction

" The tree of a thread that branches (two answers to its first message, the first answered twice in
" a row), line for line as notmuch-tree 0.37 draws it; then the tree's keys on it.
function! Step_32_tree_keys() abort
  for l:file in sort(glob($MAILDEX_VIM_CORPUS . '/later/shed/*', 0, 1))
    call system('maildex insert +shed', readfile(l:file, 'b'))
  endfor
  MaildexTree subject:shed
  call Wait('&filetype ==# "maildextree" && getline("$") ==# "End of search results."')
  call AssertScreen('32-tree-branches')
  " n p, and Enter: the thread at the message (which marks it read)
  call cursor(1, 1)
  call Keys('2n')
  call assert_equal(3, line('.'))
  call Keys('p')
  call assert_equal(2, line('.'))
  call Keys('9n')
  call assert_equal(5, line('.'))
  call Keys('9p')
  call assert_equal(1, line('.'))
  call Keys("jj\<CR>")
  call Wait('&filetype ==# "maildexshow" && getline(1) !~# "^Loading"')
  call assert_match('^  Carol <carol@example.net>', getline('.'))
  call Keys('q')
  call assert_equal('maildex://tree/subject:shed', bufname('%'))
  call assert_equal(3, line('.'))
  call Wait('getline(".") =~# "(inbox shed)$"')
  " tags of the message: + - u; a archives the message and moves on
  call Keys("+paint\<CR>")
  call Wait('getline(".") =~# "(inbox paint shed)$"')
  call assert_equal(['id:shed-3@example.net'], Maildex('search --output=messages tag:paint'))
  call Keys("-paint\<CR>")
  call Wait('getline(".") =~# "(inbox shed)$"')
  call Keys('u')
  call Wait('getline(".") =~# "(inbox shed unread)$"')
  call assert_equal(['1'], Maildex('count tag:unread and id:shed-3@example.net'))
  call Keys('a')
  call assert_equal(4, line('.'))
  call Wait('getline(3) =~# "(shed unread)$"')
  call assert_equal(['0'], Maildex('count tag:inbox and id:shed-3@example.net'))
  " = again, the cursor on its message; o oldest first and back
  call Keys('=')
  call Wait('getline("$") ==# "End of search results." && line(".") == 4')
  call assert_match('Alice Example  *│ ╰─► \.\.\.', getline('.'))
  call Keys('o')
  call Wait('getline("$") ==# "End of search results." && b:maildex_tree.sort ==# "oldest-first"')
  call assert_equal('maildex://tree/subject:shed', bufname('%'))
  call Keys('o')
  call Wait('getline("$") ==# "End of search results." && b:maildex_tree.sort ==# "newest-first"')
  " r R: answers to the message
  call cursor(2, 1)
  call Keys('r')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal(['To: Bob Builder <bob@example.com>', 'Subject: Re: Which colour for the shed?'], getline(2, 3))
  call s:discard()
  call assert_equal('maildex://tree/subject:shed', bufname('%'))
  call Keys('R')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('To: Bob Builder <bob@example.com>, Alice Example <alice@example.org>', getline(2))
  call s:discard()
  " e on a message that is no draft opens it only once the user says so (a headless confirm()
  " answers its default, No)
  call Keys('e')
  call assert_equal('maildextree', &filetype)
  " A archives the thread and goes to the next thread's first line (there is none: its last line)
  call cursor(1, 1)
  call Keys('A')
  call assert_equal(5, line('.'))
  call Wait('Maildex("count tag:inbox and subject:shed") == ["0"]')
  call Wait('getline(1) =~# "(shed unread)$" && getline(2) =~# "(shed unread)$"')
  " m s q
  call Keys('m')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call s:discard()
  call Keys("sfrom:dave\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/from:dave', bufname('%'))
  call Keys('q')
  call assert_equal('maildex://tree/subject:shed', bufname('%'))
  call Keys('q')
  call assert_notequal('maildex://tree/subject:shed', bufname('%'))
endfunction

" Space in a tree: a screen down, drawing more (two lines a page; a list's Space is Step_03's).
function! Step_33_space() abort
  let g:maildex_page_lines = 2
  MaildexTree *
  call Wait('&filetype ==# "maildextree" && b:maildex_tree.done && b:maildex_tree.show == 0 && !empty(b:maildex_tree.rows)')
  let l:rows = len(b:maildex_tree.rows)
  call assert_notequal([], b:maildex_tree.pending)
  call Keys("\<Space>")
  call Wait('b:maildex_tree.show == 0 && len(b:maildex_tree.rows) > ' . l:rows)
  call assert_equal(len(b:maildex_tree.rows), line('$'))
  unlet g:maildex_page_lines
  call Keys('q')
endfunction

" A thread's other keys: p to the message before, - removes a tag, r answers the sender, m a new
" message, A archives the thread and goes back to the list, Enter on an attachment's button saves it.
function! Step_34_show_keys() abort
  Maildex subject:shed
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call cursor(line('$'), 1)
  call Keys('p')
  call assert_match('^ Dave Developer <dave@lists.example.org>', getline('.'))
  call Keys('p')
  call assert_match('^   Alice Example <alice@example.org>', getline('.'))
  call Keys('2p')
  call assert_match('^ Bob Builder <bob@example.com>', getline('.'))
  call Keys("-shed\<CR>")
  call Wait('getline(".") !~# "shed"')
  call assert_equal(['0'], Maildex('count tag:shed and id:shed-2@example.com'))
  call Keys('r')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal(['To: Bob Builder <bob@example.com>', 'In-Reply-To: <shed-2@example.com>'], [getline(2), getline(4)])
  call s:discard()
  call assert_equal('maildexshow', &filetype)
  call Keys('m')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal(['To: ', 'Subject: '], [getline(2), getline(4)])
  call s:discard()
  call Maildex('tag +inbox -- subject:shed')
  call Keys('A')
  call assert_equal('maildex://search/subject:shed', bufname('%'))
  call Wait('Maildex("count tag:inbox and subject:shed") == ["0"]')
  Maildex tag:attachment
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('minutes.pdf')
  let l:path = $MAILDEX_VIM_OUT . '/enter.pdf'
  call Keys("\<CR>\<C-u>" . l:path . "\<CR>")
  call Wait('getfsize(' . string(l:path) . ') == getfsize($MAILDEX_VIM_CORPUS . "/minutes.pdf")')
  call assert_equal(readfile($MAILDEX_VIM_CORPUS . '/minutes.pdf', 'B'), readfile(l:path, 'B'))
  call Keys('q')
endfunction

" A draft in a tree: an answer saved with :write joins its thread there (tagged draft); e resumes
" it, and sending it files it in Sent/ and removes the draft.
function! Step_35_tree_draft() abort
  MaildexTree subject:shed
  call Wait('&filetype ==# "maildextree" && getline("$") ==# "End of search results."')
  call search('Dave Developer')
  call Keys('r')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Keys("GoBrushes are in the car.\<Esc>")
  write
  call s:discard()
  call assert_equal('maildex://tree/subject:shed', bufname('%'))
  call Keys('=')
  call Wait('getline("$") ==# "End of search results." && search("(draft)$", "nw") > 0')
  call cursor(search('(draft)$', 'nw'), 1)
  call assert_match('Maildex Tester  *  ╰─► \.\.\.', getline('.'))
  call Keys('e')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('In-Reply-To: <shed-5@lists.example.org>', getline(search('^In-Reply-To:', 'nw')))
  call assert_notequal(0, search('^Brushes are in the car\.$', 'nw'))
  call Keys("\<C-c>\<C-c>")
  call Wait('len(Maildex("search --output=files folder:Sent and subject:shed")) == 1')
  call Wait('Maildex("count --exclude=false tag:draft") == ["0"]')
  call assert_equal([], glob($MAIL_DIR . '/Drafts/*/*', 0, 1), 'files left in Drafts/')
  call Wait('Maildex("count tag:replied and id:shed-5@lists.example.org") == ["1"]')
endfunction
